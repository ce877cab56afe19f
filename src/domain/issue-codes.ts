/**
 * The documented codes of issues (decision 225): a stable name for each kind of problem a person
 * meets, with its values in `params`, so that a client can say it in the person's language. The
 * issue's `message` stays the service's English sentence. Numbers in `params` are raw numbers (the
 * client formats them in its locale); a period is given as `year`, `periodType`, `periodUnit`.
 * A code is added here, never renamed: clients translate by it.
 */
export const ISSUE_CODES = {
  // Request validation (the schema keyword that failed); `field` is the path, as in `path`.
  'request.required': '{field} is missing',
  'request.type': '{field} is not of type {expected} (JSON types, comma-separated)',
  'request.minimum': '{field} is below {limit}',
  'request.maximum': '{field} is above {limit}',
  'request.minLength': '{field} is shorter than {limit} characters',
  'request.maxLength': '{field} is longer than {limit} characters',
  'request.enum': '{field} is not one of {allowed} (comma-separated)',
  'request.format': '{field} is not a {format} (uuid, date, date-time, email, uri…)',
  'request.additionalProperties': '{field} is not an allowed property',
  'request.invalid': '{field} does not have the expected shape (see message)',
  // A value of a submission, against its element (params: `label` is the element's label).
  'value.notNumber': 'a NUMBER value that is not a finite number',
  'value.tooLarge': 'a number too large to be stored exactly',
  'value.notText': 'a TEXT value that is not a string',
  'value.textTooLong': 'a text longer than {max} characters',
  'value.notBoolean': 'a BOOLEAN value that is not true or false',
  'value.notOption': 'a SELECT value that is not one of {options} (JSON texts, comma-separated)',
  'value.notDate': 'a DATE value that is not a date YYYY-MM-DD',
  'value.notMediaId': 'a FILE value that is not a media id',
  'value.recordTooLarge': 'a TIMESTAMP record larger than {max} bytes of JSON',
  'value.belowMinimum': '{label} below its minimum {min} (in {unit}: symbol, {unitName}: name)',
  'value.aboveMaximum': '{label} above its maximum {max} (in {unit}, {unitName})',
  'value.notWhole': '{label} not a whole number (of {unit}, {unitName})',
  'value.dateOutsidePeriod':
    '{label}: {date} outside the period {year}/{periodType}/{periodUnit} ({first} to {last})',
  'value.unitMismatch': 'a value sent in {unit} that cannot be converted into {elementUnit}',
  'value.unitNotAllowed': 'a unit given for an element that is not a NUMBER or has no unit',
  'value.unitUnknown': 'a unit id that names no unit',
  'value.periodRequired': 'periodUnit is missing',
  'value.periodOutOfRange': 'periodUnit outside 1..{max} for a {periodType} form',
  'value.timestampRequired': 'a TIMESTAMP value without its timestamp',
  'value.timestampInvalid': 'a timestamp that is not ISO 8601',
  'value.timestampOutsideYear': '{label}: {timestamp} not within {year}',
  'value.timestampMonth': 'periodUnit that is not the month of the timestamp ({month})',
  'value.timestampNotAllowed': 'a timestamp on an element that is not TIMESTAMP',
  'value.duplicate': 'the same element and period as values.{other}',
  'value.elementUnknown': 'an element that is not one of the form',
  'value.formNotActive': 'the form is not active on the site for {year}',
  // Locks (decision 212: a lock's refusal).
  'period.locked': '{label} (or the form {form} at {site}) for {year}/{periodType}/{periodUnit} is locked',
  // Site scope of the caller.
  'site.outOfScope': 'the site {site} is not among the caller’s sites',
  // An activity definition's uiCode.
  'uiCode.syntax': 'uiCode does not parse: {detail} (line {line}, column {column})',
  // Signing in and invitations.
  'signin.invalidCredentials': 'wrong e-mail address or password',
  'signin.noMembership': 'the account has no active membership',
  'invitation.invalid': 'the invitation link is not valid',
  'invitation.accepted': 'the invitation was accepted already',
  'invitation.expired': 'the invitation has expired',
  'invitation.pending': '{email} has a pending invitation already',
  'invitation.passwordTooShort': 'the password is shorter than {min} characters',
  // Rows of a source import (decision 239); the row's sheet, index and column travel beside the
  // issue. `cell` is the cell as read (JSON), `what` names it: year, period, value or input (`input`).
  'import.sheetUnmapped': 'no mapping entry matches the sheet {sheet}',
  'import.formGone': 'the mapping’s form {form} no longer exists',
  'import.formNotFound': 'no form has metadata {key} = {value}',
  'import.formAmbiguous': 'more than one form has metadata {key} = {value}',
  'import.siteMissing': 'no site: the mapping has no site column and the request no context.siteId',
  'import.siteUnknown': 'context.siteId is not a site of the organization',
  'import.cellEmpty': 'the {cell} cell is empty (cell: site, date, year, period, element, value)',
  'import.siteNotFound': 'no site has {match} {text} (match: id, code, name, metadata.<key>)',
  'import.siteAmbiguous': 'more than one site has {match} {text}',
  'import.notNumber': '{what} {cell} is not a number (what: year, period, value, input; `input` names it)',
  'import.tooLarge': '{what} {cell} is too large to be stored exactly',
  'import.notWhole': '{what} {cell} is not a whole number',
  'import.notDate': '{cell} is not an ISO 8601 date',
  'import.yearOutOfRange': 'the year {year} is outside {firstYear}..{lastYear}',
  'import.dateYearMismatch': 'the date is in {dateYear} (UTC), not in {year}',
  'import.yearMissing': 'no year: no year column, no context.year and no date',
  'import.periodOutOfRange': 'the period {periodUnit} is outside 1..{max} for a {periodType} form',
  'import.elementUnknown': 'the form has no element {element}',
  'import.elementIsActivity': '{element} is an ACTIVITY element: map it as an activity sheet',
  'import.elementIsTimestamp': '{element} is a TIMESTAMP element, which imports do not fill',
  'import.elementNotActivity': '{element} is a {type} element, not an ACTIVITY element',
  'import.unitUnknown': '{symbol} is not a known unit symbol',
  'import.definitionGone': 'the activity definition of {element} is no longer available',
  'import.calculationFailed': '{element}: the calculation failed ({detail}: the runner’s English words)',
  'import.tooManyActivities': 'more than {max} activities land on one element and period',
  // A source import's request, refused as a whole.
  'import.tooManyRows': 'the request holds {rows} rows; at most {max} in one import',
  'import.definitionUnknown':
    'sourceAdapterDefinitionId is not a source adapter definition of the organization',
  'import.versionUnknown': 'adapterVersion is not a version of that source adapter definition',
  'import.formSiteInactive': 'a form-site of the import is not active',
  'import.sumTooLarge': '{element}: the rows {rows} of {sheet} add up to more than a number can hold',
  // Reviewing values (POST /form-submissions/values/review).
  'review.commentRequired': 'a rejection without a comment',
  'review.valueNotFound': 'an id that is no value on the caller’s sites',
  'review.notManager': 'reviewing needs manager rights on {site}',
  // Evidence files (POST /media/presigned-url, and FILE values naming one).
  'media.nameInvalid': 'a file name that cannot be stored (empty, too long, control characters or a path)',
  'media.typeNotAllowed': 'a file of type {extension} (with its dot; empty: none); {allowed}: the accepted ones',
  'media.typeMismatch': 'contentType is not {expected}, the type of a {extension} file',
  'media.tooLarge': 'a file larger than {maxBytes} bytes',
  'media.quotaExceeded': 'the organization’s storage quota of {quotaBytes} bytes would be exceeded ({usedBytes} used)',
  'value.fileUnknown': 'a FILE value naming no file of the organization the caller may see',
  'value.fileNotUploaded': 'a FILE value naming a file whose upload has not finished',
  // Activities of an ACTIVITY element (`label` is the element's label, `input` an input's name).
  'activity.notObject': 'an activity that is not an object of inputs',
  'activity.inputTooLong': 'an activity longer than {max} characters of JSON',
  'activity.inputUnknown': '{input} is not an input of the activity definition',
  'activity.inputRequired': 'the required input {input} is missing',
  'activity.inputType': 'the input {input} is not of its type {type} (string, number, boolean, date)',
  'activity.inputTooLarge': 'the input {input} is too large to be stored exactly',
  'activity.inputNotOption': 'the input {input} is not one of {options} (comma-separated)',
  'activity.tooMany': '{count} activities in one request; at most {max}',
  'activity.calculationFailed': '{label}: the calculation failed ({detail}: the runner’s English words)',
  'activity.sumTooLarge': '{label}: the activities add up to more than a number can hold',
} as const;

export type IssueCode = keyof typeof ISSUE_CODES;

/** The named values of an issue: raw numbers, texts, booleans. */
export type IssueParams = Record<string, string | number | boolean | null>;
