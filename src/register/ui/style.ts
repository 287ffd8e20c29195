/** The style sheet of the browser pages (GET /ui/style.css): plain CSS, no web fonts, nothing from elsewhere. */
export const UI_CSS = `:root { --fg: #1d2430; --muted: #5b6472; --line: #d6dbe3; --accent: #0b5cad; --ok: #1f7a3a; --bad: #b3261e; --bg: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 1.2em; padding: .6em 1.2em; background: #fff; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; }
header nav { display: flex; gap: .2em; flex: 1; }
header nav a { padding: .35em .8em; border-radius: 4px; color: var(--fg); text-decoration: none; }
header nav a.active { background: var(--accent); color: #fff; }
header nav a:hover:not(.active) { background: #e8edf5; }
.langs { display: flex; gap: .5em; font-size: .9em; }
.langs a { color: var(--muted); text-decoration: none; }
main { max-width: 68em; margin: 0 auto; padding: 1em 1.2em 3em; }
h1 { font-size: 1.5em; margin: .4em 0 .8em; }
h2 { font-size: 1.15em; margin: 1.6em 0 .6em; border-bottom: 1px solid var(--line); padding-bottom: .2em; }
footer { max-width: 68em; margin: 0 auto; padding: 1em 1.2em 2em; color: var(--muted); font-size: .9em; }
a { color: var(--accent); }
.notice { padding: .6em .9em; border-radius: 4px; border: 1px solid; }
.notice.ok { color: var(--ok); border-color: var(--ok); background: #eef8f1; }
.notice.error { color: var(--bad); border-color: var(--bad); background: #fcefee; }
form.grid { display: grid; grid-template-columns: minmax(10em, 16em) 1fr; gap: .55em 1em; align-items: start; background: #fff; padding: 1em; border: 1px solid var(--line); border-radius: 6px; }
form.grid label, form.grid .label { padding-top: .35em; font-weight: 600; }
/* long words wrap inside their box instead of running out of it */
label, dt, dd, th, td, .help { overflow-wrap: break-word; }
form.grid .full { grid-column: 1 / -1; }
input[type=text], input[type=password], input[type=number], input[type=date], select, textarea { width: 100%; padding: .4em .5em; border: 1px solid #b8c0cc; border-radius: 4px; font: inherit; background: #fff; }
/* a text box is as wide as its text (never cuts a name or value), at least as wide as its column */
input[type=text] { field-sizing: content; width: auto; min-width: 100%; }
input[readonly], textarea[readonly] { background: #eef0f3; color: var(--muted); }
.help { color: var(--muted); font-size: .88em; margin-top: .2em; }
.field-error { color: var(--bad); font-size: .9em; margin-top: .2em; }
button, .button { display: inline-block; padding: .45em 1.1em; border: 0; border-radius: 4px; background: var(--accent); color: #fff; font: inherit; cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: #e8edf5; color: var(--fg); }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .4em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f6; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3em 1.2em; background: #fff; padding: 1em; border: 1px solid var(--line); border-radius: 6px; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.badge { display: inline-block; padding: .05em .5em; border-radius: 1em; font-size: .85em; background: #e8edf5; }
.badge.ok { background: #e3f3e8; color: var(--ok); }
.badge.bad { background: #fbe4e2; color: var(--bad); }
details.help-table summary { cursor: pointer; color: var(--accent); }
/* the receipt's frame: the journal page's script sizes it to the receipt; this height is for a browser without it */
iframe.paper { display: block; width: 26em; height: 46em; border: 1px solid var(--line); background: #fff; }
.tltttn { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; }
.tltttn input[type=text] { min-width: 8em; }
table.records td.fn { word-break: break-all; }
p.paging { margin-top: .8em; }
/* profile and base-data pages */
.register-choice { display: flex; gap: .6em; align-items: center; margin-bottom: 1em; }
.register-choice select { width: auto; }
form.grid label.inline, label.inline { font-weight: normal; padding-top: 0; }
.help.blocked, .help.locked { color: #8a4b00; }
table.attributes td, table.extra-fields td { padding: .25em .4em; }
table.attributes td:first-child input { min-width: 14em; }
table.attributes label.inline { white-space: nowrap; }
table.attributes td:nth-child(2) input, table.extra-fields td input { min-width: 12em; }
tr.unprinted td { background: #fff4e5; }
tr.invalid td { background: #fcefee; }
form.grid h2, form.grid h3 { margin-bottom: 0; }
h3 { font-size: 1em; margin: .8em 0 .2em; }
ul.warnings { color: #8a4b00; }
.required { color: var(--bad); }
pre.other-parts { background: #fff; border: 1px solid var(--line); padding: .6em; overflow: auto; }
@media (max-width: 40em) { form.grid { grid-template-columns: 1fr; } header nav { flex-basis: 100%; } }
`;
