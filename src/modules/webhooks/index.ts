/** The webhooks module's front door (decision 217): routes, the delivery job, the events write paths emit. */
export { isPrivateAddress } from './webhooks.address.ts';
export { type DeliveryDeps, deliveryHandler, envelope, signedHeaders } from './webhooks.deliver.ts';
export {
  DELIVER_JOB,
  DELIVERY_ATTEMPTS,
  emitEvent,
  WEBHOOK_EVENTS,
  type WebhookEvent,
  webhookEvents,
} from './webhooks.events.ts';
export {
  emitCompletedPeriods,
  PERIODS_SWEEP_INTERVAL_MS,
  PERIODS_SWEEP_JOB,
  sweepCompletedPeriods,
} from './webhooks.periods.ts';
export { webhooksRoutes } from './webhooks.routes.ts';
