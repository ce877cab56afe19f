/** The service's notion of "now": tests inject a fixed or moving clock (expiry, due dates). */
export type Clock = () => Date;
