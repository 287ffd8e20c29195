/** The usage text of `efr apikey`, apart from the command so that `efr --help` loads nothing else. */
export const APIKEY_USAGE = `  apikey    API keys of cloud POS (efr serve --cloud); the secret is shown once and stored hashed
            efr apikey create --taxid <TaxId> [--name label] [--data DIR] [--db URL] [--json]
            efr apikey list [--data DIR] [--db URL]
            efr apikey revoke <key> [--data DIR] [--db URL]
            (--db or EFR_DB: the PostgreSQL journal the cloud processes share)
`;
