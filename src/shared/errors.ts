/**
 * The stable list of error codes the service answers with, each with its result code,
 * HTTP status and a message in en, de, fr and nl. `{field}`-style placeholders are filled in.
 *
 * A message is whole in its language: the parameters that describe in words (`expected`, `detail`) are given
 * either as a text per language (`LocalText`) or as English that the phrase table below knows. An English
 * description the table does not know is never put into a German, French or Dutch message: that message is then
 * the code's `brief` form, which says the same without the description (the English message keeps it).
 */
export type RC = 'OK' | 'BAD' | 'NO';
export type Lang = 'en' | 'de' | 'fr' | 'nl';
export const LANGS: readonly Lang[] = ['en', 'de', 'fr', 'nl'];

/** A parameter's text in every language. */
export type LocalText = Readonly<Record<Lang, string>>;
type Translated = Readonly<Record<Exclude<Lang, 'en'>, string>>;

interface ErrorDef {
  rc: RC;
  status: number;
  msg: Record<Lang, string>;
  /** the message without its descriptive parameters, for a language they are not given in */
  brief?: Translated;
  /** parameters shown as given in every language: amounts, another party's answer (an authority's, in its words) */
  asGiven?: readonly string[];
}

const defs = {
  '#DUPLICATE': {
    rc: 'OK', status: 200,
    msg: {
      en: 'Transaction {id} was already registered; the original response is returned',
      de: 'Transaktion {id} wurde bereits registriert; die ursprüngliche Antwort wird geliefert',
      fr: 'La transaction {id} est déjà enregistrée ; la réponse d\'origine est renvoyée',
      nl: 'Transactie {id} is al geregistreerd; het oorspronkelijke antwoord wordt teruggegeven',
    },
  },
  '#MALFORMED': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The request body is not valid {format}: {detail}',
      de: 'Der Inhalt der Anfrage ist kein gültiges {format}: {detail}',
      fr: 'Le corps de la requête n\'est pas du {format} valide : {detail}',
      nl: 'De inhoud van het verzoek is geen geldige {format}: {detail}',
    },
    brief: {
      de: 'Der Inhalt der Anfrage ist kein gültiges {format}',
      fr: 'Le corps de la requête n\'est pas du {format} valide',
      nl: 'De inhoud van het verzoek is geen geldige {format}',
    },
  },
  '#XML_FORBIDDEN': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'XML with a DOCTYPE or entity declaration is refused',
      de: 'XML mit DOCTYPE- oder ENTITY-Deklaration wird abgelehnt',
      fr: 'Le XML contenant une déclaration DOCTYPE ou ENTITY est refusé',
      nl: 'XML met een DOCTYPE- of ENTITY-declaratie wordt geweigerd',
    },
  },
  '#EMPTY_BODY': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The request has no body; expected {expected}',
      de: 'Die Anfrage hat keinen Inhalt; erwartet wird {expected}',
      fr: 'La requête n\'a pas de contenu ; attendu : {expected}',
      nl: 'Het verzoek heeft geen inhoud; verwacht: {expected}',
    },
    brief: {
      de: 'Die Anfrage hat keinen Inhalt',
      fr: 'La requête n\'a pas de contenu',
      nl: 'Het verzoek heeft geen inhoud',
    },
  },
  '#UNKNOWN_ROOT': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'Unknown root element {field}; expected {expected}',
      de: 'Unbekanntes Wurzelelement {field}; erwartet wird {expected}',
      fr: 'Élément racine inconnu {field} ; attendu : {expected}',
      nl: 'Onbekend hoofdelement {field}; verwacht: {expected}',
    },
    brief: {
      de: 'Unbekanntes Wurzelelement {field}',
      fr: 'Élément racine inconnu {field}',
      nl: 'Onbekend hoofdelement {field}',
    },
  },
  '#MISSING_FIELD': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} is required',
      de: '{field} ist ein Pflichtfeld',
      fr: '{field} est obligatoire',
      nl: '{field} is verplicht',
    },
  },
  '#INVALID_TYPE': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} must be {expected}, got "{value}"',
      de: '{field} muss {expected} sein, erhalten: "{value}"',
      fr: '{field} doit être {expected}, reçu : « {value} »',
      nl: '{field} moet {expected} zijn, ontvangen: "{value}"',
    },
    brief: {
      de: '{field} hat einen ungültigen Wert, erhalten: "{value}"',
      fr: '{field} a une valeur invalide, reçu : « {value} »',
      nl: '{field} heeft een ongeldige waarde, ontvangen: "{value}"',
    },
  },
  '#INVALID_AMOUNT': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} must be a decimal amount with a point (e.g. 12.50), got "{value}"',
      de: '{field} muss ein Dezimalbetrag mit Punkt sein (z. B. 12.50), erhalten: "{value}"',
      fr: '{field} doit être un montant décimal avec un point (p. ex. 12.50), reçu : « {value} »',
      nl: '{field} moet een decimaal bedrag met een punt zijn (bv. 12.50), ontvangen: "{value}"',
    },
  },
  '#INVALID_DATE': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} must be a date-time YYYY-MM-DDThh:mm:ss, got "{value}"',
      de: '{field} muss ein Zeitpunkt im Format YYYY-MM-DDThh:mm:ss sein, erhalten: "{value}"',
      fr: '{field} doit être une date-heure AAAA-MM-JJThh:mm:ss, reçu : « {value} »',
      nl: '{field} moet een datum-tijd JJJJ-MM-DDThh:mm:ss zijn, ontvangen: "{value}"',
    },
  },
  '#POS_SUM': {
    rc: 'BAD', status: 400,
    asGiven: ['expected'],
    msg: {
      en: 'Sum of the position amounts (PosA) {actual} does not equal ESR.T {expected}',
      de: 'Summe der Positionsbeträge (PosA) {actual} ist ungleich ESR.T {expected}',
      fr: 'La somme des montants des positions (PosA) {actual} n\'est pas égale à ESR.T {expected}',
      nl: 'Som van de positiebedragen (PosA) {actual} is niet gelijk aan ESR.T {expected}',
    },
  },
  '#PAY_SUM': {
    rc: 'BAD', status: 400,
    asGiven: ['expected'],
    msg: {
      en: 'Sum of the payment amounts (PayA) {actual} does not equal the total ESR.T {expected}',
      de: 'Summe der Zahlungsbeträge (PayA) {actual} ist ungleich der Summe ESR.T {expected}',
      fr: 'La somme des paiements (PayA) {actual} n\'est pas égale au total ESR.T {expected}',
      nl: 'Som van de betalingen (PayA) {actual} is niet gelijk aan het totaal ESR.T {expected}',
    },
  },
  '#TAX_SUM': {
    rc: 'BAD', status: 400,
    asGiven: ['expected'],
    msg: {
      en: 'Sum of the tax amounts (TaxA Amt) {actual} does not equal the total ESR.T {expected}',
      de: 'Summe der Steuerbeträge (TaxA Amt) {actual} ist ungleich der Summe ESR.T {expected}',
      fr: 'La somme des montants de taxe (TaxA Amt) {actual} n\'est pas égale au total ESR.T {expected}',
      nl: 'Som van de belastingbedragen (TaxA Amt) {actual} is niet gelijk aan het totaal ESR.T {expected}',
    },
  },
  '#TAX_NET': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field}: Net {net} + TAmt {tamt} does not equal Amt {amt}',
      de: '{field}: Net {net} + TAmt {tamt} ist ungleich Amt {amt}',
      fr: '{field} : Net {net} + TAmt {tamt} n\'est pas égal à Amt {amt}',
      nl: '{field}: Net {net} + TAmt {tamt} is niet gelijk aan Amt {amt}',
    },
  },
  '#TAX_GROUP': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} "{value}" is neither a configured tax group letter, a percentage nor a TaxA/Tax TaxG',
      de: '{field} "{value}" ist weder ein konfigurierter Steuergruppen-Buchstabe, ein Prozentsatz noch eine TaxA/Tax TaxG',
      fr: '{field} « {value} » n\'est ni une lettre de groupe de taxe configurée, ni un pourcentage, ni un TaxG de TaxA/Tax',
      nl: '{field} "{value}" is geen geconfigureerde btw-groepletter, percentage of TaxA/Tax TaxG',
    },
  },
  '#TAX_POS_SUM': {
    rc: 'BAD', status: 400,
    asGiven: ['expected'],
    msg: {
      en: 'Tax group {group}: modified position amounts {actual} do not equal the tax element Amt {expected} ({field})',
      de: 'Steuergruppe {group}: Summe der geänderten Positionsbeträge {actual} ist ungleich Amt des Steuerelements {expected} ({field})',
      fr: 'Groupe de taxe {group} : les montants modifiés des positions {actual} ne sont pas égaux au montant Amt de l\'élément de taxe {expected} ({field})',
      nl: 'Btw-groep {group}: gewijzigde positiebedragen {actual} zijn niet gelijk aan Amt van het belastingelement {expected} ({field})',
    },
  },
  '#MOD_TARGET': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} "{value}" does not name a position of this transaction',
      de: '{field} "{value}" bezeichnet keine Position dieser Transaktion',
      fr: '{field} « {value} » ne désigne aucune position de cette transaction',
      nl: '{field} "{value}" verwijst niet naar een positie van deze transactie',
    },
  },
  '#DATE_RANGE': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'ESR.D {value} is more than {days} days away from the current date {now} (Normalize_D)',
      de: 'ESR.D {value} liegt mehr als {days} Tage vom aktuellen Datum {now} entfernt (Normalize_D)',
      fr: 'ESR.D {value} est à plus de {days} jours de la date actuelle {now} (Normalize_D)',
      nl: 'ESR.D {value} ligt meer dan {days} dagen van de huidige datum {now} (Normalize_D)',
    },
  },
  '#TN_USED': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'Transaction number {id} was already registered this year with different content (SQ {sq})',
      de: 'Transaktionsnummer {id} wurde dieses Jahr bereits mit anderem Inhalt registriert (SQ {sq})',
      fr: 'Le numéro de transaction {id} a déjà été enregistré cette année avec un autre contenu (SQ {sq})',
      nl: 'Transactienummer {id} is dit jaar al met andere inhoud geregistreerd (SQ {sq})',
    },
  },
  '#ALREADY_VOIDED': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The original transaction {value} was already voided (SQ {sq})',
      de: 'Die ursprüngliche Transaktion {value} wurde bereits storniert (SQ {sq})',
      fr: 'La transaction d\'origine {value} a déjà été annulée (SQ {sq})',
      nl: 'De oorspronkelijke transactie {value} is al geannuleerd (SQ {sq})',
    },
  },
  '#RETURN_EXCEEDS': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field}: returns {asked} of "{value}", but only {left} of the original remain to be returned',
      de: '{field}: gibt {asked} von "{value}" zurück, vom Original sind aber nur noch {left} rückgebbar',
      fr: '{field} : retourne {asked} de « {value} », mais il n\'en reste que {left} de l\'original à retourner',
      nl: '{field}: retourneert {asked} van "{value}", maar van het origineel kunnen nog maar {left} worden geretourneerd',
    },
  },
  '#ALREADY_RETURNED': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The original transaction {value} was already (partly) returned (SQ {sq}); return the rest instead of voiding it',
      de: 'Die ursprüngliche Transaktion {value} wurde bereits (teilweise) zurückgegeben (SQ {sq}); den Rest zurückgeben statt stornieren',
      fr: 'La transaction d\'origine {value} a déjà été (partiellement) retournée (SQ {sq}) ; retournez le reste au lieu de l\'annuler',
      nl: 'De oorspronkelijke transactie {value} is al (gedeeltelijk) geretourneerd (SQ {sq}); retourneer de rest in plaats van te annuleren',
    },
  },
  '#ALREADY_RESUMED': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The parked receipt {value} was already resumed (SQ {sq})',
      de: 'Der geparkte Beleg {value} wurde bereits fortgesetzt (SQ {sq})',
      fr: 'Le ticket en attente {value} a déjà été repris (SQ {sq})',
      nl: 'Het geparkeerde bonnetje {value} is al hervat (SQ {sq})',
    },
  },
  '#LINE_VOID': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} voids "{value}", but no earlier position of this receipt has that much of it left',
      de: '{field} storniert "{value}", aber keine vorherige Position dieses Belegs hat davon noch so viel',
      fr: '{field} annule « {value} », mais aucune position précédente de ce ticket n\'en a encore autant',
      nl: '{field} annuleert "{value}", maar geen eerdere positie van dit bonnetje heeft daar nog zoveel van',
    },
  },
  '#FN_GIVEN': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'ESR.FN is allocated by the service and cannot be sent by the POS',
      de: 'ESR.FN wird vom Dienst vergeben und kann nicht von der Kasse gesendet werden',
      fr: 'ESR.FN est attribué par le service et ne peut pas être envoyé par la caisse',
      nl: 'ESR.FN wordt door de dienst toegekend en kan niet door de kassa worden verzonden',
    },
  },
  '#REGISTER_REQUIRED': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field} is required in every request of this instance (profile RN_TT is true)',
      de: '{field} ist in jeder Anfrage an diese Instanz erforderlich (Profil RN_TT ist true)',
      fr: '{field} est obligatoire dans chaque requête de cette instance (profil RN_TT à true)',
      nl: '{field} is verplicht in elk verzoek aan deze instantie (profiel RN_TT is true)',
    },
  },
  '#REGISTER_LIMIT': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'Register {value} cannot be added: this instance serves at most {limit} POS installations',
      de: 'Die Kasse {value} kann nicht hinzugefügt werden: diese Instanz bedient höchstens {limit} Kassen',
      fr: 'La caisse {value} ne peut pas être ajoutée : cette instance sert au plus {limit} caisses',
      nl: 'Kassa {value} kan niet worden toegevoegd: deze instantie bedient hoogstens {limit} kassa\'s',
    },
  },
  '#UNKNOWN_REGISTER': {
    rc: 'BAD', status: 404,
    msg: {
      en: 'Register {value} is not known to this instance',
      de: 'Die Kasse {value} ist dieser Instanz nicht bekannt',
      fr: 'La caisse {value} n\'est pas connue de cette instance',
      nl: 'Kassa {value} is niet bekend bij deze instantie',
    },
  },
  '#INVALID_VALUE': {
    rc: 'BAD', status: 400,
    msg: {
      en: '{field}: {detail}',
      de: '{field}: {detail}',
      fr: '{field} : {detail}',
      nl: '{field}: {detail}',
    },
    brief: {
      de: '{field} hat einen ungültigen Wert',
      fr: '{field} a une valeur invalide',
      nl: '{field} heeft een ongeldige waarde',
    },
  },
  '#BADGE_LOCKED': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'Badge cannot be changed after activation (the instance is activated with {badge})',
      de: 'Badge kann nach der Aktivierung nicht geändert werden (die Instanz ist mit {badge} aktiviert)',
      fr: 'Badge ne peut pas être modifié après l\'activation (l\'instance est activée avec {badge})',
      nl: 'Badge kan na de activering niet worden gewijzigd (de instantie is geactiveerd met {badge})',
    },
  },
  '#BLOCKED': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'Setting of {field} for {rn} is blocked',
      de: 'Die Einstellung {field} für {rn} ist gesperrt',
      fr: 'Le paramètre {field} pour {rn} est bloqué',
      nl: 'De instelling {field} voor {rn} is geblokkeerd',
    },
  },
  '#TEST_RC': {
    rc: 'NO', status: 406,
    msg: {
      en: 'Result forced by the profile attribute TEST_RC',
      de: 'Ergebnis durch das Profilattribut TEST_RC erzwungen',
      fr: 'Résultat forcé par l\'attribut de profil TEST_RC',
      nl: 'Resultaat afgedwongen door het profielattribuut TEST_RC',
    },
  },
  '#DEVICE_FAILED': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The signature device {value} does not work; the cashbox cannot start without it. Please retry when it is back',
      de: 'Die Signaturerstellungseinheit {value} funktioniert nicht; ohne sie kann die Kasse nicht starten. Bitte wiederholen, sobald sie wieder da ist',
      fr: 'Le dispositif de signature {value} ne fonctionne pas ; la caisse ne peut pas démarrer sans lui. Veuillez réessayer',
      nl: 'Het handtekeningapparaat {value} werkt niet; de kassa kan niet zonder starten. Probeer opnieuw zodra het terug is',
    },
  },
  '#JOURNAL': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The journal could not be written; the transaction is not registered, please retry',
      de: 'Das Journal konnte nicht geschrieben werden; die Transaktion ist nicht registriert, bitte wiederholen',
      fr: 'Le journal n\'a pas pu être écrit ; la transaction n\'est pas enregistrée, veuillez réessayer',
      nl: 'Het journaal kon niet worden geschreven; de transactie is niet geregistreerd, probeer opnieuw',
    },
  },
  '#DISK_FULL': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The disk of the register service is full (or its DiskQuota is reached); the transaction is not registered. Free space, then retry',
      de: 'Der Datenträger des Registrierdienstes ist voll (oder seine DiskQuota erreicht); die Transaktion ist nicht registriert. Bitte Platz schaffen und wiederholen',
      fr: 'Le disque du service d\'enregistrement est plein (ou son DiskQuota est atteint) ; la transaction n\'est pas enregistrée. Libérez de l\'espace, puis réessayez',
      nl: 'De schijf van de registratiedienst is vol (of zijn DiskQuota is bereikt); de transactie is niet geregistreerd. Maak ruimte vrij en probeer opnieuw',
    },
  },
  '#FORBIDDEN': {
    rc: 'BAD', status: 403,
    msg: {
      en: '{value} is allowed only from this machine or with the profile password',
      de: '{value} ist nur von diesem Rechner oder mit dem Profilpasswort erlaubt',
      fr: '{value} n\'est autorisé que depuis cette machine ou avec le mot de passe du profil',
      nl: '{value} is alleen toegestaan vanaf deze machine of met het profielwachtwoord',
    },
  },
  '#INSTANCE_ONLY': {
    rc: 'BAD', status: 403,
    msg: {
      en: '{value} acts on the whole instance: it needs the instance (def) password, a user of realm EFR, or a request from this machine',
      de: '{value} betrifft die ganze Instanz: erforderlich sind das Passwort der Instanz (def), ein Benutzer des Bereichs EFR oder eine Anfrage von diesem Rechner',
      fr: '{value} concerne toute l\'instance : il faut le mot de passe de l\'instance (def), un utilisateur du domaine EFR ou une requête depuis cette machine',
      nl: '{value} betreft de hele instantie: nodig zijn het wachtwoord van de instantie (def), een gebruiker van realm EFR of een verzoek vanaf deze machine',
    },
  },
  '#CROSS_SITE': {
    rc: 'BAD', status: 403,
    msg: {
      en: '{value} was refused: a request of the web page {origin} needs that origin in HttpServer_AllowOrigin{detail}',
      de: '{value} wurde abgelehnt: eine Anfrage der Webseite {origin} erfordert diesen Ursprung in HttpServer_AllowOrigin{detail}',
      fr: '{value} a été refusé : une requête de la page web {origin} exige cette origine dans HttpServer_AllowOrigin{detail}',
      nl: '{value} is geweigerd: een verzoek van de webpagina {origin} vereist die oorsprong in HttpServer_AllowOrigin{detail}',
    },
    brief: {
      de: '{value} wurde abgelehnt: eine Anfrage der Webseite {origin} erfordert diesen Ursprung in HttpServer_AllowOrigin',
      fr: '{value} a été refusé : une requête de la page web {origin} exige cette origine dans HttpServer_AllowOrigin',
      nl: '{value} is geweigerd: een verzoek van de webpagina {origin} vereist die oorsprong in HttpServer_AllowOrigin',
    },
  },
  '#HOST_NOT_ALLOWED': {
    rc: 'BAD', status: 421,
    msg: {
      en: '{value} was refused: the host name "{host}" is not a name of this service (add it to HttpServer_Hosts)',
      de: '{value} wurde abgelehnt: der Hostname "{host}" ist kein Name dieses Dienstes (in HttpServer_Hosts eintragen)',
      fr: '{value} a été refusé : le nom d\'hôte "{host}" n\'est pas un nom de ce service (l\'ajouter à HttpServer_Hosts)',
      nl: '{value} is geweigerd: de hostnaam "{host}" is geen naam van deze dienst (voeg hem toe aan HttpServer_Hosts)',
    },
  },
  '#TOO_MANY_ATTEMPTS': {
    rc: 'BAD', status: 429,
    msg: {
      en: 'Too many failed password attempts from this address; try again in {seconds} s',
      de: 'Zu viele falsche Passwörter von dieser Adresse; erneut versuchen in {seconds} s',
      fr: 'Trop de mots de passe erronés depuis cette adresse ; réessayer dans {seconds} s',
      nl: 'Te veel foute wachtwoorden vanaf dit adres; probeer het opnieuw over {seconds} s',
    },
  },
  '#OUT_OF_SCOPE': {
    rc: 'BAD', status: 403,
    msg: {
      en: 'The access token is for {scope}; {detail}',
      de: 'Das Zugriffstoken gilt für {scope}; {detail}',
      fr: 'Le jeton d\'accès est valable pour {scope} ; {detail}',
      nl: 'Het toegangstoken geldt voor {scope}; {detail}',
    },
    brief: {
      de: 'Das Zugriffstoken gilt für {scope}; diese Anfrage liegt außerhalb davon, nichts wurde ausgeführt',
      fr: 'Le jeton d\'accès est valable pour {scope} ; cette requête en sort, rien n\'a été fait',
      nl: 'Het toegangstoken geldt voor {scope}; dit verzoek valt daarbuiten, er is niets gedaan',
    },
  },
  '#UNAUTHORIZED': {
    rc: 'BAD', status: 401,
    msg: {
      en: '{value} needs the system password or a user name and password for realm {realm}',
      de: '{value} erfordert das Systempasswort oder einen Benutzernamen mit Passwort für den Bereich {realm}',
      fr: '{value} nécessite le mot de passe système ou un nom d\'utilisateur et un mot de passe pour le domaine {realm}',
      nl: '{value} vereist het systeemwachtwoord of een gebruikersnaam en wachtwoord voor realm {realm}',
    },
  },
  '#NOT_FOUND': {
    rc: 'BAD', status: 404,
    msg: {
      en: 'Not found: {value}',
      de: 'Nicht gefunden: {value}',
      fr: 'Introuvable : {value}',
      nl: 'Niet gevonden: {value}',
    },
  },
  '#FILE_NOT_FOUND': {
    rc: 'BAD', status: 404,
    msg: {
      en: 'Layout {value} does not exist',
      de: 'Layout {value} existiert nicht',
      fr: 'La mise en page {value} n\'existe pas',
      nl: 'Layout {value} bestaat niet',
    },
  },
  '#MISSING_FILE': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The request has no file (multipart form field "file" with a .pug or .ejs file)',
      de: 'Die Anfrage enthält keine Datei (Formularfeld "file" mit einer .pug- oder .ejs-Datei)',
      fr: 'La requête ne contient pas de fichier (champ "file" avec un fichier .pug ou .ejs)',
      nl: 'Het verzoek bevat geen bestand (formulierveld "file" met een .pug- of .ejs-bestand)',
    },
  },
  '#PUG_SYNTAX_ERROR': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The template {value} cannot be compiled: {detail}',
      de: 'Die Vorlage {value} kann nicht übersetzt werden: {detail}',
      fr: 'Le modèle {value} ne peut pas être compilé : {detail}',
      nl: 'De sjabloon {value} kan niet worden gecompileerd: {detail}',
    },
    brief: {
      de: 'Die Vorlage {value} kann nicht übersetzt werden',
      fr: 'Le modèle {value} ne peut pas être compilé',
      nl: 'De sjabloon {value} kan niet worden gecompileerd',
    },
  },
  '#FILE_EXISTS': {
    rc: 'BAD', status: 409,
    msg: {
      en: 'Layout {value} exists already; replace it with PUT',
      de: 'Layout {value} existiert bereits; mit PUT ersetzen',
      fr: 'La mise en page {value} existe déjà ; la remplacer avec PUT',
      nl: 'Layout {value} bestaat al; vervang het met PUT',
    },
  },
  '#TOO_LARGE': {
    rc: 'BAD', status: 413,
    msg: {
      en: 'The request body is larger than {value} bytes',
      de: 'Der Inhalt der Anfrage ist größer als {value} Bytes',
      fr: 'Le corps de la requête dépasse {value} octets',
      nl: 'De inhoud van het verzoek is groter dan {value} bytes',
    },
  },
  '#CERTIFICATE': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The certificate cannot be used: {detail}',
      de: 'Das Zertifikat kann nicht verwendet werden: {detail}',
      fr: 'Le certificat ne peut pas être utilisé : {detail}',
      nl: 'Het certificaat kan niet worden gebruikt: {detail}',
    },
    brief: {
      de: 'Das Zertifikat kann nicht verwendet werden',
      fr: 'Le certificat ne peut pas être utilisé',
      nl: 'Het certificaat kan niet worden gebruikt',
    },
  },
  '#CLIENT_CERTIFICATE': {
    rc: 'BAD', status: 403,
    msg: {
      en: 'This service accepts only requests with a trusted TLS client certificate: {detail}',
      de: 'Dieser Dienst nimmt nur Anfragen mit einem vertrauenswürdigen TLS-Client-Zertifikat an: {detail}',
      fr: 'Ce service n\'accepte que les requêtes avec un certificat client TLS de confiance : {detail}',
      nl: 'Deze dienst aanvaardt alleen verzoeken met een vertrouwd TLS-clientcertificaat: {detail}',
    },
    brief: {
      de: 'Dieser Dienst nimmt nur Anfragen mit einem vertrauenswürdigen TLS-Client-Zertifikat an',
      fr: 'Ce service n\'accepte que les requêtes avec un certificat client TLS de confiance',
      nl: 'Deze dienst aanvaardt alleen verzoeken met een vertrouwd TLS-clientcertificaat',
    },
  },
  '#IN_USE': {
    rc: 'BAD', status: 409,
    msg: {
      en: 'Restore refused (IN_USE): {detail}; a backup is restored only onto a new, unused instance',
      de: 'Wiederherstellung abgelehnt (IN_USE): {detail}; eine Sicherung wird nur auf einer neuen, unbenutzten Instanz wiederhergestellt',
      fr: 'Restauration refusée (IN_USE) : {detail} ; une sauvegarde n\'est restaurée que sur une instance neuve et inutilisée',
      nl: 'Herstel geweigerd (IN_USE): {detail}; een back-up wordt alleen op een nieuwe, ongebruikte instantie hersteld',
    },
    brief: {
      de: 'Wiederherstellung abgelehnt (IN_USE); eine Sicherung wird nur auf einer neuen, unbenutzten Instanz wiederhergestellt',
      fr: 'Restauration refusée (IN_USE) ; une sauvegarde n\'est restaurée que sur une instance neuve et inutilisée',
      nl: 'Herstel geweigerd (IN_USE); een back-up wordt alleen op een nieuwe, ongebruikte instantie hersteld',
    },
  },
  '#ONLINE': {
    rc: 'BAD', status: 409,
    msg: {
      en: 'Restore refused (ONLINE): {detail}; restore onto an instance that has not registered anything since it started',
      de: 'Wiederherstellung abgelehnt (ONLINE): {detail}; nur auf einer Instanz wiederherstellen, die seit ihrem Start nichts registriert hat',
      fr: 'Restauration refusée (ONLINE) : {detail} ; restaurer sur une instance qui n\'a rien enregistré depuis son démarrage',
      nl: 'Herstel geweigerd (ONLINE): {detail}; herstel op een instantie die sinds haar start niets heeft geregistreerd',
    },
    brief: {
      de: 'Wiederherstellung abgelehnt (ONLINE); nur auf einer Instanz wiederherstellen, die seit ihrem Start nichts registriert hat',
      fr: 'Restauration refusée (ONLINE) ; restaurer sur une instance qui n\'a rien enregistré depuis son démarrage',
      nl: 'Herstel geweigerd (ONLINE); herstel op een instantie die sinds haar start niets heeft geregistreerd',
    },
  },
  '#BACKUP_INVALID': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'The backup {value} cannot be used: {detail}',
      de: 'Die Sicherung {value} kann nicht verwendet werden: {detail}',
      fr: 'La sauvegarde {value} ne peut pas être utilisée : {detail}',
      nl: 'De back-up {value} kan niet worden gebruikt: {detail}',
    },
    brief: {
      de: 'Die Sicherung {value} kann nicht verwendet werden',
      fr: 'La sauvegarde {value} ne peut pas être utilisée',
      nl: 'De back-up {value} kan niet worden gebruikt',
    },
  },
  '#BACKUP_BUSY': {
    rc: 'NO', status: 406,
    msg: {
      en: 'A backup or restore of register {value} is running; please retry when it has finished',
      de: 'Eine Sicherung oder Wiederherstellung der Kasse {value} läuft; bitte nach ihrem Ende wiederholen',
      fr: 'Une sauvegarde ou restauration de la caisse {value} est en cours ; veuillez réessayer quand elle sera terminée',
      nl: 'Een back-up of herstel van kassa {value} loopt; probeer opnieuw wanneer die klaar is',
    },
  },
  '#FISCAL_CERTIFICATE': {
    rc: 'BAD', status: 400,
    msg: {
      en: 'Register {rn} cannot sign fiscal requests: {detail}',
      de: 'Die Kasse {rn} kann keine Fiskalanfragen signieren: {detail}',
      fr: 'La caisse {rn} ne peut pas signer les demandes fiscales : {detail}',
      nl: 'Kassa {rn} kan geen fiscale verzoeken ondertekenen: {detail}',
    },
    brief: {
      de: 'Die Kasse {rn} kann keine Fiskalanfragen signieren',
      fr: 'La caisse {rn} ne peut pas signer les demandes fiscales',
      nl: 'Kassa {rn} kan geen fiscale verzoeken ondertekenen',
    },
  },
  '#AUTHORITY_PENDING': {
    rc: 'OK', status: 200,
    msg: {
      en: 'The tax authority ({authority}) did not answer in time. The receipt is valid with its {code} and may be handed out; the {id} is delivered later and added to the journal',
      de: 'Die Steuerbehörde ({authority}) hat nicht rechtzeitig geantwortet. Der Beleg ist mit seinem {code} gültig und darf ausgegeben werden; der {id} wird nachgeliefert und im Journal ergänzt',
      fr: 'L\'administration fiscale ({authority}) n\'a pas répondu à temps. Le ticket est valable avec son {code} et peut être remis ; le {id} sera transmis plus tard et ajouté au journal',
      nl: 'De belastingdienst ({authority}) heeft niet op tijd geantwoord. Het bonnetje is geldig met zijn {code} en mag worden meegegeven; de {id} wordt later geleverd en aan het journaal toegevoegd',
    },
  },
  '#AUTHORITY_REFUSED': {
    rc: 'OK', status: 200,
    asGiven: ['detail'],
    msg: {
      en: 'The tax authority ({authority}) refused the receipt: {detail}. It is journaled with its {code}; correct the set-up (certificate, tax number, premise, base data): the receipt is then sent again by itself',
      de: 'Die Steuerbehörde ({authority}) hat den Beleg abgelehnt: {detail}. Er ist mit seinem {code} im Journal; bitte die Einrichtung (Zertifikat, Steuernummer, Geschäftsraum, Stammdaten) korrigieren: danach wird er von selbst erneut gesendet',
      fr: 'L\'administration fiscale ({authority}) a refusé le ticket : {detail}. Il est journalisé avec son {code} ; corrigez la configuration (certificat, numéro fiscal, local, données de base) : il sera ensuite renvoyé automatiquement',
      nl: 'De belastingdienst ({authority}) heeft het bonnetje geweigerd: {detail}. Het staat met zijn {code} in het journaal; corrigeer de instelling (certificaat, fiscaal nummer, vestiging, basisgegevens): daarna wordt het vanzelf opnieuw verzonden',
    },
  },
  '#NO_PRINTER': {
    rc: 'BAD', status: 404,
    msg: {
      en: 'No printer is configured for register {rn} (profile attribute Printer)',
      de: 'Für die Kasse {rn} ist kein Drucker eingerichtet (Profilattribut Printer)',
      fr: 'Aucune imprimante n\'est configurée pour la caisse {rn} (attribut de profil Printer)',
      nl: 'Voor kassa {rn} is geen printer ingesteld (profielattribuut Printer)',
    },
  },
  '#PRINTER_UNREACHABLE': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The printer {value} cannot be reached or does not answer. Check that it is switched on and connected, then retry',
      de: 'Der Drucker {value} ist nicht erreichbar oder antwortet nicht. Bitte prüfen, ob er eingeschaltet und verbunden ist, dann wiederholen',
      fr: 'L\'imprimante {value} est injoignable ou ne répond pas. Vérifiez qu\'elle est allumée et connectée, puis réessayez',
      nl: 'De printer {value} is niet bereikbaar of antwoordt niet. Controleer of hij aan staat en verbonden is en probeer opnieuw',
    },
  },
  '#PRINTER_PAPER_END': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The printer {value} is out of paper. Load paper, then retry',
      de: 'Im Drucker {value} ist kein Papier mehr. Bitte Papier einlegen und wiederholen',
      fr: 'L\'imprimante {value} n\'a plus de papier. Chargez du papier, puis réessayez',
      nl: 'De printer {value} heeft geen papier meer. Plaats papier en probeer opnieuw',
    },
  },
  '#PRINTER_COVER_OPEN': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The cover of the printer {value} is open. Close it, then retry',
      de: 'Die Abdeckung des Druckers {value} ist offen. Bitte schließen und wiederholen',
      fr: 'Le capot de l\'imprimante {value} est ouvert. Fermez-le, puis réessayez',
      nl: 'De klep van de printer {value} is open. Sluit hem en probeer opnieuw',
    },
  },
  '#PRINTER_ERROR': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The printer {value} reports an error ({detail}). Check the printer, then retry',
      de: 'Der Drucker {value} meldet einen Fehler ({detail}). Bitte den Drucker prüfen und wiederholen',
      fr: 'L\'imprimante {value} signale une erreur ({detail}). Vérifiez l\'imprimante, puis réessayez',
      nl: 'De printer {value} meldt een fout ({detail}). Controleer de printer en probeer opnieuw',
    },
    brief: {
      de: 'Der Drucker {value} meldet einen Fehler. Bitte den Drucker prüfen und wiederholen',
      fr: 'L\'imprimante {value} signale une erreur. Vérifiez l\'imprimante, puis réessayez',
      nl: 'De printer {value} meldt een fout. Controleer de printer en probeer opnieuw',
    },
  },
  '#PRINTER_UNCONFIRMED': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The printer {value} took the receipt but did not confirm that it was printed. Check the paper: send the request again to print it marked as a copy',
      de: 'Der Drucker {value} hat den Beleg angenommen, aber den Druck nicht bestätigt. Bitte das Papier prüfen: die Anfrage erneut senden druckt ihn als Kopie',
      fr: 'L\'imprimante {value} a reçu le ticket mais n\'a pas confirmé son impression. Vérifiez le papier : renvoyez la requête pour l\'imprimer marqué comme copie',
      nl: 'De printer {value} heeft de bon ontvangen maar het afdrukken niet bevestigd. Controleer het papier: stuur het verzoek opnieuw om hem als kopie af te drukken',
    },
  },
  '#PRINTING': {
    rc: 'NO', status: 423,
    msg: {
      en: 'A receipt of register {rn} is being printed; ask again in a moment',
      de: 'Ein Beleg der Kasse {rn} wird gerade gedruckt; bitte gleich noch einmal fragen',
      fr: 'Un ticket de la caisse {rn} est en cours d\'impression ; redemandez dans un instant',
      nl: 'Er wordt een bon van kassa {rn} afgedrukt; vraag het zo meteen opnieuw',
    },
  },
  '#DRAWER_TIMEOUT': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The cash drawer of register {rn} was not closed within {seconds} seconds',
      de: 'Die Kassenlade der Kasse {rn} wurde nicht innerhalb von {seconds} Sekunden geschlossen',
      fr: 'Le tiroir-caisse de la caisse {rn} n\'a pas été fermé dans les {seconds} secondes',
      nl: 'De kassalade van kassa {rn} is niet binnen {seconds} seconden gesloten',
    },
  },
  '#INTERNAL': {
    rc: 'NO', status: 406,
    msg: {
      en: 'The request could not be processed now; nothing was registered, please retry',
      de: 'Die Anfrage konnte jetzt nicht verarbeitet werden; nichts wurde registriert, bitte wiederholen',
      fr: 'La requête n\'a pas pu être traitée ; rien n\'a été enregistré, veuillez réessayer',
      nl: 'Het verzoek kon nu niet worden verwerkt; er is niets geregistreerd, probeer opnieuw',
    },
  },
} satisfies Record<string, ErrorDef>;

export type ErrorCode = keyof typeof defs;
export type ErrorParam = string | number | LocalText;
export type ErrorParams = Record<string, ErrorParam>;

/** Every code, for those who go through all of them (the tests of the messages). */
export const ERROR_CODES = Object.keys(defs) as ErrorCode[];

export function errorDef(code: ErrorCode): ErrorDef {
  return defs[code];
}

/** Parameters that describe in words (others are names, numbers and values, the same in every language). */
const DESCRIPTIVE: ReadonlySet<string> = new Set(['expected', 'detail']);
/** Parameters that name something and may carry a word or two (a field "as register A inherits it", a TL "(none)"). */
const LABELS: ReadonlySet<string> = new Set(['field', 'scope', 'code']);

const tr = (de: string, fr: string, nl: string): Translated => ({ de, fr, nl });

/** English descriptions the service's code gives as `expected` or `detail`, in the other languages. */
const PHRASES: ReadonlyMap<string, Translated> = new Map([
  ['text', tr('ein Text', 'un texte', 'een tekst')],
  ['an object', tr('ein Objekt', 'un objet', 'een object')],
  ['an object {"Txt": ...}', tr('ein Objekt {"Txt": ...}', 'un objet {"Txt": ...}', 'een object {"Txt": ...}')],
  ['a decimal amount', tr('ein Dezimalbetrag', 'un montant décimal', 'een decimaal bedrag')],
  ['a decimal number', tr('eine Dezimalzahl', 'un nombre décimal', 'een decimaal getal')],
  ['an integer', tr('eine ganze Zahl', 'un nombre entier', 'een geheel getal')],
  ['0 or 1', tr('0 oder 1', '0 ou 1', '0 of 1')],
  ['a date-time YYYY-MM-DDThh:mm:ss', tr('ein Zeitpunkt im Format YYYY-MM-DDThh:mm:ss', 'une date-heure AAAA-MM-JJThh:mm:ss', 'een datum-tijd JJJJ-MM-DDThh:mm:ss')],
  ['a date YYYY-MM-DD', tr('ein Datum im Format YYYY-MM-DD', 'une date AAAA-MM-JJ', 'een datum JJJJ-MM-DD')],
  ['true or false', tr('true oder false', 'true ou false', 'true of false')],
  ['BAD or NO', tr('BAD oder NO', 'BAD ou NO', 'BAD of NO')],
  ['Tra or SESR', tr('Tra oder SESR', 'Tra ou SESR', 'Tra of SESR')],
  ['Tra, TraS or Audit', tr('Tra, TraS oder Audit', 'Tra, TraS ou Audit', 'Tra, TraS of Audit')],
  ['text/plain lines', tr('Textzeilen (text/plain)', 'des lignes de texte (text/plain)', 'tekstregels (text/plain)')],
  ['a profile {"Badge": ...}', tr('ein Profil {"Badge": ...}', 'un profil {"Badge": ...}', 'een profiel {"Badge": ...}')],
  ['a time of day HH:MM[:SS] or NO', tr('eine Uhrzeit HH:MM[:SS] oder NO', 'une heure HH:MM[:SS] ou NO', 'een tijdstip HH:MM[:SS] of NO')],
  ['a whole number of seconds', tr('eine ganze Zahl von Sekunden', 'un nombre entier de secondes', 'een geheel aantal seconden')],
  ['a whole number of days', tr('eine ganze Zahl von Tagen', 'un nombre entier de jours', 'een geheel aantal dagen')],
  ['a whole number of milliseconds (100 to 3600000) or NO', tr('eine ganze Zahl von Millisekunden (100 bis 3600000) oder NO', 'un nombre entier de millisecondes (100 à 3600000) ou NO', 'een geheel aantal milliseconden (100 tot 3600000) of NO')],
  ['a port number 1-65535', tr('eine Portnummer 1-65535', 'un numéro de port 1-65535', 'een poortnummer 1-65535')],
  ['a number of MB (0 or more, e.g. 500 or 0.5)', tr('eine Anzahl MB (0 oder mehr, z. B. 500 oder 0.5)', 'un nombre de Mo (0 ou plus, p. ex. 500 ou 0.5)', 'een aantal MB (0 of meer, bv. 500 of 0.5)')],
  ['true, false or a log size from 16K to 1024M (a bare number is MB)', tr('true, false oder eine Protokollgröße von 16K bis 1024M (eine Zahl allein bedeutet MB)', 'true, false ou une taille de journal de 16K à 1024M (un nombre seul signifie Mo)', 'true, false of een loggrootte van 16K tot 1024M (een getal alleen betekent MB)')],
  ['32, 42 or 48 columns', tr('32, 42 oder 48 Spalten', '32, 42 ou 48 colonnes', '32, 42 of 48 kolommen')],
  ['host or host:port of the printer (port 9100 by default)', tr('Host oder Host:Port des Druckers (standardmäßig Port 9100)', 'hôte ou hôte:port de l\'imprimante (port 9100 par défaut)', 'host of host:poort van de printer (standaard poort 9100)')],
  ['host or host:port of the customer display', tr('Host oder Host:Port der Kundenanzeige', 'hôte ou hôte:port de l\'afficheur client', 'host of host:poort van het klantdisplay')],
  [' (by name, not *) and credentials in the request', tr(' (namentlich, nicht *) und Zugangsdaten in der Anfrage', ' (nommément, pas *) et des identifiants dans la requête', ' (bij naam, niet *) en inloggegevens in het verzoek')],
  ['offline', tr('offline', 'hors ligne', 'offline')],
  ['a resumed position needs ESR.ResumeFN', tr('eine fortgesetzte Position braucht ESR.ResumeFN', 'une position reprise nécessite ESR.ResumeFN', 'een hervatte positie heeft ESR.ResumeFN nodig')],
  ['expected an object with one root property such as {"Tra":{...}}', tr('erwartet wird ein Objekt mit einer Wurzeleigenschaft wie {"Tra":{...}}', 'attendu : un objet avec une seule propriété racine comme {"Tra":{...}}', 'verwacht: een object met één hoofdeigenschap zoals {"Tra":{...}}')],
  ['only fiscal transactions are voided; this one is non-fiscal (NF or NFS)', tr('nur fiskalische Transaktionen werden storniert; diese ist nicht fiskalisch (NF oder NFS)', 'seules les transactions fiscales sont annulées ; celle-ci est non fiscale (NF ou NFS)', 'alleen fiscale transacties worden geannuleerd; deze is niet-fiscaal (NF of NFS)')],
  ['no status answer to DLE EOT 1 after the drawer pulse', tr('keine Statusantwort auf DLE EOT 1 nach dem Öffnen der Lade', 'pas de réponse d\'état à DLE EOT 1 après l\'impulsion du tiroir', 'geen statusantwoord op DLE EOT 1 na de ladepuls')],
  ['unknown part; expected Cmp, Loc, Trm, Dev, DE_Agentur or Doc', tr('unbekannter Teil; erwartet wird Cmp, Loc, Trm, Dev, DE_Agentur oder Doc', 'partie inconnue ; attendu : Cmp, Loc, Trm, Dev, DE_Agentur ou Doc', 'onbekend deel; verwacht: Cmp, Loc, Trm, Dev, DE_Agentur of Doc')],
]);

/** Descriptions with values in them: the pattern, and the text per language with `$1`, `$2` for its groups. */
const PATTERNS: ReadonlyArray<[RegExp, Translated]> = [
  [/^one of ([^"]+)$/, tr('einer der Werte $1', 'l\'une des valeurs $1', 'een van de waarden $1')],
  [/^one of ([^"]+), got "(.*)"$/, tr('einer der Werte $1, erhalten: "$2"', 'l\'une des valeurs $1, reçu : « $2 »', 'een van de waarden $1, ontvangen: "$2"')],
  [/^true or false, got "(.*)"$/, tr('true oder false, erhalten: "$1"', 'true ou false, reçu : « $1 »', 'true of false, ontvangen: "$1"')],
  [/^a whole number of seconds, 1 to (\d+)$/, tr('eine ganze Zahl von Sekunden, 1 bis $1', 'un nombre entier de secondes, de 1 à $1', 'een geheel aantal seconden, 1 tot $1')],
  [/^a number of characters (\d+)-(\d+)$/, tr('eine Anzahl Zeichen $1-$2', 'un nombre de caractères $1-$2', 'een aantal tekens $1-$2')],
  [/^([\w-]+) \(or none\)$/, tr('$1 (oder keiner)', '$1 (ou aucun)', '$1 (of geen)')],
  [/^([\w-]+) or ([\w-]+) \(or none\)$/, tr('$1 oder $2 (oder keiner)', '$1 ou $2 (ou aucun)', '$1 of $2 (of geen)')],
  [/^at most (\d+) characters, got (\d+)$/, tr('höchstens $1 Zeichen, erhalten: $2', 'au plus $1 caractères, reçu : $2', 'hoogstens $1 tekens, ontvangen: $2')],
  [/^at most (\d+) lines, got (\d+)$/, tr('höchstens $1 Zeilen, erhalten: $2', 'au plus $1 lignes, reçu : $2', 'hoogstens $1 regels, ontvangen: $2')],
  [/^at most (\d+) characters, got (\d+) \("(.*)"\)$/, tr('höchstens $1 Zeichen, erhalten: $2 („$3“)', 'au plus $1 caractères, reçu : $2 (« $3 »)', 'hoogstens $1 tekens, ontvangen: $2 ("$3")')],
  [/^an ISO 3166 alpha-2 country code such as AT, got "(.*)"$/, tr('ein Ländercode nach ISO 3166 (zwei Buchstaben) wie AT, erhalten: "$1"', 'un code pays ISO 3166 à deux lettres comme AT, reçu : « $1 »', 'een landcode volgens ISO 3166 (twee letters) zoals AT, ontvangen: "$1"')],
  [/^0 or 1, got "(.*)"$/, tr('0 oder 1, erhalten: "$1"', '0 ou 1, reçu : « $1 »', '0 of 1, ontvangen: "$1"')],
  [/^the format NNNNNN-NNNN, got "(.*)"$/, tr('das Format NNNNNN-NNNN, erhalten: "$1"', 'le format NNNNNN-NNNN, reçu : « $1 »', 'het formaat NNNNNN-NNNN, ontvangen: "$1"')],
  [/^a whole number of days, got "(.*)"$/, tr('eine ganze Zahl von Tagen, erhalten: "$1"', 'un nombre entier de jours, reçu : « $1 »', 'een geheel aantal dagen, ontvangen: "$1"')],
  [/^expected one root element, got (\d+)$/, tr('erwartet wird genau ein Wurzelelement, erhalten: $1', 'attendu : un seul élément racine, reçu : $1', 'verwacht: precies één hoofdelement, ontvangen: $1')],
  [/^expected exactly one root property, got (\d+)$/, tr('erwartet wird genau eine Wurzeleigenschaft, erhalten: $1', 'attendu : exactement une propriété racine, reçu : $1', 'verwacht: precies één hoofdeigenschap, ontvangen: $1')],
  [/^SQ (\d+) is itself a void$/, tr('SQ $1 ist selbst ein Storno', 'SQ $1 est elle-même une annulation', 'SQ $1 is zelf een annulering')],
  [/^(\S*) is not Qty (\S*) x Pri (\S*) = (\S+)$/, tr('$1 ist nicht Qty $2 x Pri $3 = $4', '$1 n\'est pas Qty $2 x Pri $3 = $4', '$1 is niet Qty $2 x Pri $3 = $4')],
  [/^"(.*)" names several tax groups: send a TaxA element for each \(method 3\)$/, tr('"$1" nennt mehrere Steuergruppen: für jede ein TaxA-Element senden (Methode 3)', '« $1 » désigne plusieurs groupes de taxe : envoyez un élément TaxA pour chacun (méthode 3)', '"$1" noemt meerdere btw-groepen: stuur voor elke een TaxA-element (methode 3)')],
  [/^"(.*)" is not the FN of a parked receipt \(NF=(\w+)\) of this register$/, tr('"$1" ist nicht die FN eines geparkten Belegs (NF=$2) dieser Kasse', '« $1 » n\'est pas le FN d\'un ticket en attente (NF=$2) de cette caisse', '"$1" is niet het FN van een geparkeerd bonnetje (NF=$2) van deze kassa')],
  [/^"(.*)" may not contain \$$/, tr('"$1" darf kein $ enthalten', '« $1 » ne doit pas contenir $', '"$1" mag geen $ bevatten')],
  [/^no status answer to DLE EOT (\d+)$/, tr('keine Statusantwort auf DLE EOT $1', 'pas de réponse d\'état à DLE EOT $1', 'geen statusantwoord op DLE EOT $1')],
  [/^register (\S+) is not its register (\S+); nothing was done$/, tr('die Kasse $1 ist nicht seine Kasse $2; nichts wurde ausgeführt', 'la caisse $1 n\'est pas sa caisse $2 ; rien n\'a été fait', 'kassa $1 is niet zijn kassa $2; er is niets gedaan')],
  [/^register (\S+) belongs to TaxId (\S+); nothing was done$/, tr('die Kasse $1 gehört zur TaxId $2; nichts wurde ausgeführt', 'la caisse $1 appartient au TaxId $2 ; rien n\'a été fait', 'kassa $1 hoort bij TaxId $2; er is niets gedaan')],
  [/^ESR\.TaxId (\S+) is another company; nothing was registered$/, tr('ESR.TaxId $1 ist ein anderes Unternehmen; nichts wurde registriert', 'ESR.TaxId $1 est une autre entreprise ; rien n\'a été enregistré', 'ESR.TaxId $1 is een ander bedrijf; er is niets geregistreerd')],
  [/^the transaction's TL\/TT (\S+) is another terminal; nothing was registered$/, tr('TL/TT $1 der Transaktion ist ein anderes Terminal; nichts wurde registriert', 'le TL/TT $1 de la transaction est un autre terminal ; rien n\'a été enregistré', 'TL/TT $1 van de transactie is een andere terminal; er is niets geregistreerd')],
  [/^(TaxId|TL|TT) (\S*) in the query is not the token's; nothing was done$/, tr('$1 $2 der Anfrage ist nicht die des Tokens; nichts wurde ausgeführt', '$1 $2 de la requête n\'est pas celui du jeton ; rien n\'a été fait', '$1 $2 in het verzoek is niet die van het token; er is niets gedaan')],
  [/^the last transaction of register (\S+) is of another terminal; nothing was voided$/, tr('die letzte Transaktion der Kasse $1 ist von einem anderen Terminal; nichts wurde storniert', 'la dernière transaction de la caisse $1 est d\'un autre terminal ; rien n\'a été annulé', 'de laatste transactie van kassa $1 is van een andere terminal; er is niets geannuleerd')],
];

/** Words inside names: the part that is a name stays, the words are given in the language. */
const LABEL_WORDS: ReadonlyArray<[RegExp, Translated]> = [
  [/ \(as register (.+) inherits it\)$/, tr(' (von der Kasse $1 geerbt)', ' (hérité par la caisse $1)', ' (door kassa $1 overgenomen)')],
  [/\(none\)/g, tr('(keine)', '(aucun)', '(geen)')],
  [/^protective code$/, tr('Schutzcode', 'code de protection', 'beveiligingscode')],
  [/^last transaction$/, tr('letzte Transaktion', 'dernière transaction', 'laatste transactie')],
];

/** No English words in it: names, codes, numbers (`Cfg`, `ESR.T`, `12.50`, `Tra, TraS`), the same in any language. */
function languageFree(text: string): boolean {
  return !/\b[a-z]{2,}\b/.test(text);
}

function withGroups(template: string, groups: readonly string[], lang: Exclude<Lang, 'en'>): string {
  return template.replace(/\$(\d)/g, (_, n: string) => labelIn(groups[Number(n) - 1] ?? '', lang));
}

function labelIn(text: string, lang: Exclude<Lang, 'en'>): string {
  return LABEL_WORDS.reduce((out, [re, words]) => out.replace(re, words[lang]), text);
}

/** An English description in another language; undefined when neither the table nor a pattern knows it. */
function describedIn(text: string, lang: Exclude<Lang, 'en'>): string | undefined {
  if (languageFree(labelIn(text, lang))) return labelIn(text, lang);
  const known = PHRASES.get(text);
  if (known) return known[lang];
  for (const [re, words] of PATTERNS) {
    const m = re.exec(text);
    if (m) return withGroups(words[lang], m.slice(1), lang);
  }
  return undefined;
}

/** A parameter as the message of `lang` shows it; undefined when it cannot be given in that language. */
function paramIn(def: ErrorDef, key: string, value: ErrorParam, lang: Lang): string | undefined {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return value[lang];
  if (lang === 'en' || def.asGiven?.includes(key)) return value;
  if (DESCRIPTIVE.has(key)) return describedIn(value, lang);
  return LABELS.has(key) ? labelIn(value, lang) : value;
}

/** The template filled in; undefined when a parameter it names cannot be given in the language. */
function fill(def: ErrorDef, template: string, lang: Lang, params: ErrorParams): string | undefined {
  let whole = true;
  const text = template.replace(/\{(\w+)\}/g, (placeholder, key: string) => {
    const v = params[key];
    if (v === undefined) return placeholder;
    const shown = paramIn(def, key, v, lang);
    if (shown === undefined) whole = false;
    return shown ?? placeholder;
  });
  return whole ? text : undefined;
}

export function message(code: ErrorCode, lang: Lang, params: ErrorParams = {}): string {
  const def: ErrorDef = defs[code];
  const full = fill(def, def.msg[lang] ?? def.msg.en, lang, params);
  if (full !== undefined) return full;
  // lang is not English here: English descriptions are always shown
  const brief = lang === 'en' ? undefined : def.brief?.[lang];
  return (brief === undefined ? undefined : fill(def, brief, lang, params)) ?? fill(def, def.msg.en, 'en', params) ?? def.msg.en;
}

export function asLang(value: string | undefined): Lang {
  const l = (value ?? '').toLowerCase().slice(0, 2);
  return (LANGS as readonly string[]).includes(l) ? (l as Lang) : 'en';
}

/** A refusal that the pipeline turns into RC BAD/NO with a localized message. */
export class FiscalError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: ErrorParams = {},
  ) {
    super(message(code, 'en', params));
    this.name = 'FiscalError';
  }

  get rc(): RC {
    return defs[this.code].rc;
  }

  get status(): number {
    return defs[this.code].status;
  }

  localized(lang: Lang): string {
    return message(this.code, lang, this.params);
  }
}
