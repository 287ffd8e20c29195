/** How long the portal keeps the ids of processed instance events (an instance resends a batch within minutes, not weeks). */
export const EVENT_IDS_KEPT_MS = 30 * 86_400_000;
