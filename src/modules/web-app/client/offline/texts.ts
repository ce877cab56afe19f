// Every text the offline parts of the app show, as message keys (i18n/*.json, "offline.*"); the
// functions take what the sentence names.
import { t } from '../i18n/index.js';

export const offlineTexts = {
  get unreachable() {
    return t('offline.unreachable');
  },
  get offline() {
    return t('offline.offline');
  },
  waiting: (n: string | number) => t('offline.waiting', { n }),
  attention: (n: string | number) => t('offline.attention', { n }),
  get sending() {
    return t('offline.sending');
  },
  get sendNow() {
    return t('offline.sendNow');
  },
  get listLabel() {
    return t('offline.listLabel');
  },
  get stateWaiting() {
    return t('offline.stateWaiting');
  },
  get stateRefused() {
    return t('offline.stateRefused');
  },
  get stateConflict() {
    return t('offline.stateConflict');
  },
  queued: (time: string | number) => t('offline.queued', { time }),
  queuedNotice: (time: string | number) => t('offline.queuedNotice', { time }),
  get sent() {
    return t('offline.sent');
  },
  get refusedTitle() {
    return t('offline.refusedTitle');
  },
  refusedValue: (label: string, message: string) => t('offline.refusedValue', { label, message }),
  get refusedHint() {
    return t('offline.refusedHint');
  },
  get forget() {
    return t('offline.forget');
  },
  get conflictTitle() {
    return t('offline.conflictTitle');
  },
  conflictValue: (label: string, theirs: string, mine: string) =>
    t('offline.conflictValue', { label, theirs, mine }),
  keepMine: (label: string) => t('offline.keepMine', { label }),
  keepTheirs: (label: string) => t('offline.keepTheirs', { label }),
  get empty() {
    return t('offline.empty');
  },
  get aFile() {
    return t('offline.aFile');
  },
  get fileGone() {
    return t('offline.fileGone');
  },
  fileWaits: (name: string | number) => t('offline.fileWaits', { name }),
  refusedWhole: (message: string | number) => t('offline.refusedWhole', { message }),
};
