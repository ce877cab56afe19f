import type { Locale } from '../lib/locales.ts';

/**
 * The sentences of the e-mails SDCS sends (invitation, reminder, rejection), per language (ICU MessageFormat). English is the source;
 * every language has every key (the type says so, and test/mail-languages.test.ts checks the
 * arguments).
 */
const en = {
  hello: 'Hello,',
  helloName: 'Hello {name},',
  role: '{role, select, OWNER {Owner} MANAGER {Manager} COLLECTOR {Collector} VIEWER {Viewer} other {{role}}}',
  'invitation.subject': 'Invitation to join {org} on SDCS',
  'invitation.colleague': 'A colleague',
  'invitation.invites': '{inviter} invites you to join {org} on SDCS as {role}.',
  'invitation.acceptHere': 'Accept the invitation here:',
  'invitation.acceptLink': 'Accept the invitation',
  'invitation.once':
    'The link works once, until {until}. If you already have an SDCS account with this e-mail address, confirm with its password; otherwise choose a name and a password.',
  'invitation.ignore': 'If you did not expect this invitation, ignore this e-mail.',
  yes: 'Yes',
  no: 'No',
  'period.quarter': 'Q{quarter} {year}',
  'reminder.subject': 'Reminder: {form}, {period}',
  'reminder.sender': 'Your manager',
  'reminder.notComplete': '{sender} reminds you that "{form}" for {period} is not complete yet.',
  'reminder.due': 'It was due on {day}.',
  'reminder.missing': 'Still missing:',
  'reminder.please':
    'Please enter the data in SDCS, or mark the period as having no activity where there was none.',
  'reminder.enterHere': 'Enter it here:',
  'reminder.enterLink': 'Enter the data',
  'rejection.subjectOne': 'Please correct: {title}',
  'rejection.subjectMany':
    'Please correct {count, plural, one {# value} other {# values}} in {periods, plural, one {# period} other {# periods}}',
  'rejection.reviewer': 'A reviewer',
  'rejection.rejected':
    '{count, plural, one {{reviewer} rejected a value you entered and asks you to correct it.} other {{reviewer} rejected # values you entered and asks you to correct them.}}',
  'rejection.comment': 'Comment:',
  'rejection.entered': '{label} (entered: {value})',
  'rejection.correctHere': 'Correct it here:',
  'rejection.correctLink': 'Correct the values',
  'rejection.back': 'Once you have entered the corrected values, they go back to the reviewer.',
};

export type MailKey = keyof typeof en;

const de: Record<MailKey, string> = {
  hello: 'Guten Tag,',
  helloName: 'Guten Tag {name},',
  role: '{role, select, OWNER {Inhaber} MANAGER {Manager} COLLECTOR {Erfasser} VIEWER {Betrachter} other {{role}}}',
  'invitation.subject': 'Einladung zu {org} auf SDCS',
  'invitation.colleague': 'Eine Kollegin oder ein Kollege',
  'invitation.invites': '{inviter} lädt Sie ein, {org} auf SDCS als {role} beizutreten.',
  'invitation.acceptHere': 'Nehmen Sie die Einladung hier an:',
  'invitation.acceptLink': 'Einladung annehmen',
  'invitation.once':
    'Der Link funktioniert einmal, bis {until}. Wenn Sie mit dieser E-Mail-Adresse schon ein SDCS-Konto haben, bestätigen Sie mit dessen Passwort; sonst wählen Sie einen Namen und ein Passwort.',
  'invitation.ignore': 'Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese E-Mail.',
  yes: 'Ja',
  no: 'Nein',
  'period.quarter': 'Q{quarter} {year}',
  'reminder.subject': 'Erinnerung: {form}, {period}',
  'reminder.sender': 'Ihre Führungskraft',
  'reminder.notComplete':
    '{sender} erinnert Sie daran, dass „{form}“ für {period} noch nicht vollständig ist.',
  'reminder.due': 'Fällig war er am {day}.',
  'reminder.missing': 'Es fehlt noch:',
  'reminder.please':
    'Bitte erfassen Sie die Daten in SDCS oder markieren Sie den Zeitraum als „keine Aktivität“, wo es keine gab.',
  'reminder.enterHere': 'Hier erfassen:',
  'reminder.enterLink': 'Daten erfassen',
  'rejection.subjectOne': 'Bitte korrigieren: {title}',
  'rejection.subjectMany':
    'Bitte korrigieren Sie {count, plural, one {# Wert} other {# Werte}} in {periods, plural, one {# Zeitraum} other {# Zeiträumen}}',
  'rejection.reviewer': 'Eine prüfende Person',
  'rejection.rejected':
    '{count, plural, one {{reviewer} hat einen von Ihnen erfassten Wert abgelehnt und bittet Sie, ihn zu korrigieren.} other {{reviewer} hat # von Ihnen erfasste Werte abgelehnt und bittet Sie, sie zu korrigieren.}}',
  'rejection.comment': 'Kommentar:',
  'rejection.entered': '{label} (erfasst: {value})',
  'rejection.correctHere': 'Hier korrigieren:',
  'rejection.correctLink': 'Werte korrigieren',
  'rejection.back': 'Sobald Sie die korrigierten Werte erfasst haben, gehen sie zurück zur Prüfung.',
};

const fr: Record<MailKey, string> = {
  hello: 'Bonjour,',
  helloName: 'Bonjour {name},',
  role: '{role, select, OWNER {Propriétaire} MANAGER {Responsable} COLLECTOR {Collecteur} VIEWER {Lecteur} other {{role}}}',
  'invitation.subject': 'Invitation à rejoindre {org} sur SDCS',
  'invitation.colleague': 'Un collègue',
  'invitation.invites': '{inviter} vous invite à rejoindre {org} sur SDCS en tant que {role}.',
  'invitation.acceptHere': 'Acceptez l’invitation ici :',
  'invitation.acceptLink': 'Accepter l’invitation',
  'invitation.once':
    'Le lien fonctionne une seule fois, jusqu’au {until}. Si vous avez déjà un compte SDCS avec cette adresse e-mail, confirmez avec son mot de passe ; sinon, choisissez un nom et un mot de passe.',
  'invitation.ignore': 'Si vous n’attendiez pas cette invitation, ignorez cet e-mail.',
  yes: 'Oui',
  no: 'Non',
  'period.quarter': 'T{quarter} {year}',
  'reminder.subject': 'Rappel : {form}, {period}',
  'reminder.sender': 'Votre responsable',
  'reminder.notComplete': '{sender} vous rappelle que « {form} » pour {period} n’est pas encore complet.',
  'reminder.due': 'Il était attendu pour le {day}.',
  'reminder.missing': 'Il manque encore :',
  'reminder.please':
    'Merci de saisir les données dans SDCS, ou d’indiquer « aucune activité » pour la période là où il n’y en a pas eu.',
  'reminder.enterHere': 'Saisissez-les ici :',
  'reminder.enterLink': 'Saisir les données',
  'rejection.subjectOne': 'À corriger : {title}',
  'rejection.subjectMany':
    'Merci de corriger {count, plural, one {# valeur} other {# valeurs}} sur {periods, plural, one {# période} other {# périodes}}',
  'rejection.reviewer': 'Un contrôleur',
  'rejection.rejected':
    '{count, plural, one {{reviewer} a refusé une valeur que vous avez saisie et vous demande de la corriger.} other {{reviewer} a refusé # valeurs que vous avez saisies et vous demande de les corriger.}}',
  'rejection.comment': 'Commentaire :',
  'rejection.entered': '{label} (saisi : {value})',
  'rejection.correctHere': 'Corrigez ici :',
  'rejection.correctLink': 'Corriger les valeurs',
  'rejection.back': 'Une fois les valeurs corrigées saisies, elles repartent au contrôle.',
};

const es: Record<MailKey, string> = {
  hello: 'Hola:',
  helloName: 'Hola, {name}:',
  role: '{role, select, OWNER {Propietario} MANAGER {Responsable} COLLECTOR {Recopilador} VIEWER {Lector} other {{role}}}',
  'invitation.subject': 'Invitación para unirse a {org} en SDCS',
  'invitation.colleague': 'Un colega',
  'invitation.invites': '{inviter} le invita a unirse a {org} en SDCS como {role}.',
  'invitation.acceptHere': 'Acepte la invitación aquí:',
  'invitation.acceptLink': 'Aceptar la invitación',
  'invitation.once':
    'El enlace funciona una sola vez, hasta el {until}. Si ya tiene una cuenta de SDCS con esta dirección de correo, confirme con su contraseña; si no, elija un nombre y una contraseña.',
  'invitation.ignore': 'Si no esperaba esta invitación, ignore este correo.',
  yes: 'Sí',
  no: 'No',
  'period.quarter': 'T{quarter} {year}',
  'reminder.subject': 'Recordatorio: {form}, {period}',
  'reminder.sender': 'Su responsable',
  'reminder.notComplete': '{sender} le recuerda que «{form}» de {period} todavía no está completo.',
  'reminder.due': 'Debía entregarse el {day}.',
  'reminder.missing': 'Aún falta:',
  'reminder.please':
    'Introduzca los datos en SDCS o marque el periodo como «sin actividad» donde no la hubo.',
  'reminder.enterHere': 'Introdúzcalos aquí:',
  'reminder.enterLink': 'Introducir los datos',
  'rejection.subjectOne': 'Corrija, por favor: {title}',
  'rejection.subjectMany':
    'Corrija, por favor, {count, plural, one {# valor} other {# valores}} en {periods, plural, one {# periodo} other {# periodos}}',
  'rejection.reviewer': 'Un revisor',
  'rejection.rejected':
    '{count, plural, one {{reviewer} ha rechazado un valor que usted introdujo y le pide que lo corrija.} other {{reviewer} ha rechazado # valores que usted introdujo y le pide que los corrija.}}',
  'rejection.comment': 'Comentario:',
  'rejection.entered': '{label} (introducido: {value})',
  'rejection.correctHere': 'Corríjalo aquí:',
  'rejection.correctLink': 'Corregir los valores',
  'rejection.back': 'Cuando haya introducido los valores corregidos, volverán a la persona que revisa.',
};

const pl: Record<MailKey, string> = {
  hello: 'Dzień dobry,',
  helloName: 'Dzień dobry, {name},',
  role: '{role, select, OWNER {Właściciel} MANAGER {Menedżer} COLLECTOR {Zbierający dane} VIEWER {Przeglądający} other {{role}}}',
  'invitation.subject': 'Zaproszenie do {org} w SDCS',
  'invitation.colleague': 'Współpracownik',
  'invitation.invites': '{inviter} zaprasza Cię do {org} w SDCS w roli: {role}.',
  'invitation.acceptHere': 'Przyjmij zaproszenie tutaj:',
  'invitation.acceptLink': 'Przyjmij zaproszenie',
  'invitation.once':
    'Link działa jeden raz, do {until}. Jeśli masz już konto SDCS z tym adresem e-mail, potwierdź jego hasłem; w przeciwnym razie wybierz nazwę i hasło.',
  'invitation.ignore': 'Jeśli nie spodziewałeś się tego zaproszenia, zignoruj tę wiadomość.',
  yes: 'Tak',
  no: 'Nie',
  'period.quarter': '{quarter} kw. {year}',
  'reminder.subject': 'Przypomnienie: {form}, {period}',
  'reminder.sender': 'Twój przełożony',
  'reminder.notComplete':
    '{sender} przypomina, że formularz „{form}” za {period} nie jest jeszcze kompletny.',
  'reminder.due': 'Termin minął {day}.',
  'reminder.missing': 'Nadal brakuje:',
  'reminder.please': 'Wprowadź dane w SDCS albo oznacz okres jako „brak aktywności” tam, gdzie jej nie było.',
  'reminder.enterHere': 'Wprowadź je tutaj:',
  'reminder.enterLink': 'Wprowadź dane',
  'rejection.subjectOne': 'Prośba o poprawkę: {title}',
  'rejection.subjectMany': 'Prośba o poprawienie wartości ({count, number}) w okresach ({periods, number})',
  'rejection.reviewer': 'bez podanej nazwy',
  'rejection.rejected':
    '{count, plural, one {Osoba weryfikująca ({reviewer}) odrzuciła wprowadzoną przez Ciebie wartość i prosi o jej poprawienie.} few {Osoba weryfikująca ({reviewer}) odrzuciła # wprowadzone przez Ciebie wartości i prosi o ich poprawienie.} many {Osoba weryfikująca ({reviewer}) odrzuciła # wprowadzonych przez Ciebie wartości i prosi o ich poprawienie.} other {Osoba weryfikująca ({reviewer}) odrzuciła # wprowadzonej przez Ciebie wartości i prosi o ich poprawienie.}}',
  'rejection.comment': 'Komentarz:',
  'rejection.entered': '{label} (wprowadzono: {value})',
  'rejection.correctHere': 'Popraw tutaj:',
  'rejection.correctLink': 'Popraw wartości',
  'rejection.back': 'Po wprowadzeniu poprawionych wartości wrócą one do weryfikacji.',
};

export const MAIL_MESSAGES: Record<Locale, Record<MailKey, string>> = { en, de, fr, es, pl };
