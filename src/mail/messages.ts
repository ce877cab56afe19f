import type { Locale } from '../lib/locales.ts';

/**
 * The sentences of the e-mails SDCS sends, per language (ICU MessageFormat). English is the source;
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
};

export const MAIL_MESSAGES: Record<Locale, Record<MailKey, string>> = { en, de, fr, es, pl };
