/**
 * The names of the recorder's entries in the store's settings. They sit apart from the recorder so that
 * whoever only reads an entry (the document handle of an answer, cleaning, cloud authentication) does not
 * load the recorder and what it imports.
 */
export const ACTIVATION_KEY = 'recorder:activation';
export const LEASE_KEY = 'recorder:lease';
export const activationKey = (rn: string): string => (rn === 'def' ? ACTIVATION_KEY : `${ACTIVATION_KEY}:${rn}`);
export const confirmedKey = (rn: string): string => `recorder:sq:${rn}`;
