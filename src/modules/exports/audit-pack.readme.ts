import type { PackHeader } from './audit-pack.data.ts';
import type { UnretainedCode } from './audit-pack.methodology.ts';

interface Notes {
  missingEvidence: { mediaId: string; fileName: string; reason: string }[];
  codeVersionsNotRetained: UnretainedCode[];
  activitiesWithoutRecordedCode: number;
}

/**
 * README.txt of an audit pack: what each file holds and how to check the pack, written for an
 * assurance practitioner (ISAE 3000 / ISAE 3410 engagements) who did not use the service.
 */
export function packReadme(h: PackHeader, notes: Notes): string {
  const scope = h.siteScope.allSites
    ? `every site of the organization (${h.siteScope.sites.length})`
    : `${h.siteScope.sites.length} site(s): ${h.siteScope.sites.map((s) => s.path).join('; ')}`;
  const caveats: string[] = [];
  if (notes.codeVersionsNotRetained.length)
    caveats.push(
      `- Some activities were calculated with a calculation code that was changed before the service kept
  old versions; their code is not in this pack ("code version not retained"):
${notes.codeVersionsNotRetained.map((c) => `    ${c.definitionKey}: ${c.activities} activities, SHA-256 ${c.calcCodeSha256}`).join('\n')}`,
    );
  if (notes.activitiesWithoutRecordedCode)
    caveats.push(
      `- ${notes.activitiesWithoutRecordedCode} activities were calculated before the service recorded which code
  calculated them (empty calcCodeSha256 in activities.csv); re-calculating them records it.`,
    );
  if (notes.missingEvidence.length)
    caveats.push(
      `- ${notes.missingEvidence.length} evidence file(s) could not be read from storage; manifest.json lists them
  under missingEvidence.`,
    );
  return `SDCS AUDIT PACK
===============

Organization:  ${h.organization.name}
Reporting year: ${h.year}
Made at:       ${h.createdAt.toISOString()} (UTC) by ${h.generatedBy.name} <${h.generatedBy.email}>
Software:      ${h.software.name} ${h.software.version}
Sites:         ${scope}
${h.filters.formId ? `Form:          only the form ${h.filters.formId}\n` : ''}
This archive is a read-only copy of the data behind the organization's sustainability figures for
one year: what was collected, by whom and when, how it was reviewed, how calculated figures were
obtained (the calculation code and the coefficients), and the evidence attached. It is meant to
let an assurance practitioner (for instance in an ISAE 3000 or ISAE 3410 engagement) trace a
reported figure back to its source data and re-perform the calculations without access to the
service.

HOW TO CHECK THAT THE PACK IS COMPLETE AND UNCHANGED
---------------------------------------------------
manifest.json lists every other file of the pack with its size, its row count (tables) and its
SHA-256 digest. manifest.sig is an Ed25519 signature of the exact bytes of manifest.json, made with
the service's signing key; manifest.json names the key by its key id. Obtain the service's public
key from the service itself (GET /api/v1/exports/signing-key), not from the pack, then either run
    sdcs verify-pack audit-pack-${h.year}.zip --key <public key file or URL>
or, with standard tools, in the unzipped folder:
    openssl pkeyutl -verify -pubin -inkey signing-key.pem -rawin -in manifest.json -sigfile manifest.sig
    sha256sum -c SHA256SUMS
and check that the SHA-256 of SHA256SUMS is the one manifest.json lists for it. A file changed,
added or removed after the pack was made breaks one of these checks.

THE FILES
---------
values.csv      One row per value stored for the year (the figures entered or imported), with
                site, form, question (element), period, the value in the element's unit and as
                entered (originalValue, selectedUnit), status (COMPLETED, APPROVED, REJECTED),
                who entered and who reviewed it and when, the import run and source rows it came
                from, the evidence files attached, and the period lock covering it.
activities.csv  One row per activity (a calculated line such as "100 litres of diesel"): its
                inputs, the result and its unit, the SHA-256 of the calculation code that produced
                it (calcCodeSha256) and every coefficient the calculation looked up.
history.csv     Every change of those values and activities in the order made: creation, edits,
                reviews with their comments, recalculations and deletions, with the state before
                and after each change (units by symbol).
forms.csv       The questionnaires: each form and each of its elements with type, unit, how
                periods are combined (aggregation), whether required, the accepted range and
                whole-number rule, the change factor above which a value is flagged, and for
                calculated elements the activity definition used.
activity-definitions.csv
                The calculation methods: inputs, result unit, current code digest, the file
                holding the code, and the code digests met among the exported activities.
methodology/<key>.js
                The calculation code of each definition as stored. The SHA-256 of each file equals
                the calcCodeSha256 of the activities it calculated; code an activity was
                calculated with before the last change is kept as methodology/<key>.<digest>.js.
units.csv       Units by symbol with their dimension and the factor converting them to the
                dimension's base unit (value in base unit = value x factorToBase).
datasets.csv    The coefficients (e.g. emission factors) calculations and indicators can use, with
                each dataset's stated source (dataSource) and edition (version), and each
                coefficient's year, units, description and link.
indicators.csv  Each reported indicator: its formula in words and units, its value for the year
                over the sites of this pack (values COMPLETED or APPROVED by default), and any
                issue that left it incomplete.
locks.csv       The year's period locks (after which values can no longer be changed), set and
                lifted, by whom and when.
evidence/       The files attached to the values (invoices, meter readings), by media id.
SHA256SUMS      The digest of every file above, in the format of sha256sum -c.
manifest.json   Who made the pack, when, with which software version, filters and site scope,
                and the size, row count and SHA-256 of every file.
manifest.sig    The signature of manifest.json (64 bytes, Ed25519).

Tables are CSV (RFC 4180 quoting, UTF-8). Times are ISO 8601 in UTC. A cell that a spreadsheet
would run as a formula starts with an apostrophe ('), which is not part of the data.
${caveats.length ? `\nLIMITATIONS OF THIS PACK\n-----------------------\n${caveats.join('\n')}\n` : ''}`;
}
