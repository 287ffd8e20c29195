/**
 * Sizes the receipt's frame on the journal page to the receipt, so that it shows whole (a long receipt is not
 * cut at its QR code, a short one leaves no empty paper). No CSS sizes a frame by its content, so this is the
 * pages' one script: inline, allowed by its hash alone (the page's policy admits no other script), reading the
 * frame's document of the same origin. Without script the frame keeps its default height and scrolls.
 */
import { createHash } from 'node:crypto';
import { type Html, raw } from './html.js';
import { PAGE_CSP } from './page-reply.js';

const SCRIPT = `for (const frame of document.querySelectorAll('iframe.paper')) {
  frame.addEventListener('load', () => {
    const root = frame.contentDocument && frame.contentDocument.documentElement;
    if (!root) return;
    const borders = frame.offsetHeight - frame.clientHeight;
    if (root.scrollWidth > frame.clientWidth) frame.style.width = (root.scrollWidth + frame.offsetWidth - frame.clientWidth) + 'px';
    frame.style.height = '0px';
    frame.style.height = (root.scrollHeight + borders) + 'px';
    frame.dataset.fitted = 'true';
  });
}`;

export const FIT_FRAME_SCRIPT: Html = raw(`<script>${SCRIPT}</script>`);

/** The pages' policy with this script allowed (and no other). */
export const PAGE_CSP_FITTING_FRAME = PAGE_CSP.replace("script-src 'none'", `script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`);
