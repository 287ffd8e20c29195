/** The usage lines of `efr portal` (kept apart so that `efr` shows them without loading the portal). */
export const PORTAL_USAGE = `  portal    start the management portal (docs/portal.md)
            --port N     HTTP port (default 5619, or EFR_PORTAL_PORT)
            --host ADDR  address to listen on (default 0.0.0.0)
            --data DIR   data folder (default ./data, or EFR_DATA); SQLite in DIR/portal/
            --db URL     PostgreSQL instead (postgres://user:pass@host/db, or EFR_PORTAL_DB)
            --silent-after D    a register not heard from for D is REGISTER_SILENT (default 24h, or PORTAL_SILENT_AFTER)
            --escalate-after D  an open notification goes a level up after D (default 24h, or PORTAL_ESCALATE_AFTER)
            --reopen-within D   a condition back within D of its close reopens it, unmailed (default 10m, 0 never; PORTAL_REOPEN_WITHIN)
            --trust-proxy T     client address from X-Forwarded-For: true or proxy addresses/CIDRs (default off; PORTAL_TRUST_PROXY)
            --smtp-url URL      notification mail by SMTP (or PORTAL_SMTP_URL); default: .eml files in DIR/portal/outbox/
            --mail-from ADDR    sender of notification mail (or PORTAL_MAIL_FROM)
  portal init            create the root organization and its first admin API client
            (--data, --db as above; --name NAME of the organization); prints the credentials once
`;
