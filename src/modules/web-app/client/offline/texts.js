// Every text the offline parts of the app show, in plain English and in one place, for the
// translation work of issue 47 to turn into message keys. Functions take what the sentence names.
export const offlineTexts = {
  unreachable: 'The service cannot be reached: check the connection.',
  offline: 'Offline: what you save is kept on this device and sent when the connection is back.',
  waiting: (n) => (n === 1 ? '1 period waiting to be sent' : `${n} periods waiting to be sent`),
  attention: (n) => (n === 1 ? '1 period needs your attention' : `${n} periods need your attention`),
  sending: 'Sending…',
  sendNow: 'Send now',
  listLabel: 'Periods kept on this device',
  stateWaiting: 'waiting to be sent',
  stateRefused: 'not stored: see the period',
  stateConflict: 'changed by someone else meanwhile: choose',
  queued: (time) => `Saved on this device at ${time}: it will be sent when the connection is back.`,
  queuedNotice: (time) =>
    `Your values of this period were saved on this device at ${time} and wait to be sent.`,
  sent: 'Your values kept on this device were sent and stored.',
  refusedTitle: 'Some values kept on this device were not stored when they were sent:',
  refusedValue: (label, message) => `${label}: ${message}`,
  refusedHint:
    'Your values are still here: correct them and save again, or forget them if they are no longer needed.',
  forget: 'Forget the values that were not stored',
  conflictTitle: 'Someone stored another value since you changed it on this device:',
  conflictValue: (label, theirs, mine) => `${label}: now ${theirs}; yours ${mine}.`,
  keepMine: (label) => `Keep mine (${label})`,
  keepTheirs: (label) => `Keep the stored value (${label})`,
  empty: 'empty',
  aFile: 'a file',
  fileWaits: (name) => `${name} is kept on this device and uploaded when the values are sent.`,
  refusedWhole: (message) => `Not stored: ${message}`,
};
