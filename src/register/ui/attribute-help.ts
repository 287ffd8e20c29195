/**
 * Help for the profile attributes the spec names (its attribute table, "Profile attributes"), and for the
 * profile settings it names besides (HttpServer_Port, UdpServer_Port, DiskQuota, Proxy, Sign_require, Sign_Cfg),
 * and for the attributes the service reads besides (Portal_Url, TL, TT: the recorder's activation; Display_Port,
 * Drawer_Timeout: the peripherals), in the four
 * page languages. Names are case-insensitive; `name` is the spelling the spec uses.
 */
import type { UiLang } from './i18n.js';

export interface AttributeHelp {
  /** the spec's spelling */
  name: string;
  /** the countries it applies to, when the spec restricts it */
  countries?: string;
  help: Readonly<Record<UiLang, string>>;
}

type H = Readonly<Record<UiLang, string>>;
const h = (en: string, de: string, fr: string, nl: string): H => ({ en, de, fr, nl });

const rows: Array<[string | string[], string | undefined, H]> = [
  ['App_restartAt', undefined, h('Daily automatic restart at hh:mm:ss (default 3:00).', 'Täglicher automatischer Neustart um hh:mm:ss (Standard 3:00).', 'Redémarrage automatique quotidien à hh:mm:ss (par défaut 3:00).', 'Dagelijkse automatische herstart om hh:mm:ss (standaard 3:00).')],
  ['Device_Auth', undefined, h('username:password for external devices.', 'Benutzername:Passwort für externe Geräte.', 'nom_utilisateur:mot_de_passe pour les appareils externes.', 'gebruikersnaam:wachtwoord voor externe apparaten.')],
  ['eDoc_testNormalize', undefined, h('A plain 2-letter ESR.DD gets the suffix -TEST; explicit values stay.', 'Ein einfaches zweistelliges ESR.DD erhält die Endung -TEST; ausdrückliche Werte bleiben.', 'Un ESR.DD simple de 2 lettres reçoit le suffixe -TEST ; les valeurs explicites restent.', 'Een eenvoudige ESR.DD van 2 letters krijgt het achtervoegsel -TEST; expliciete waarden blijven.')],
  ['EFR_testCloud', undefined, h('The instance is a test system: reports are not forwarded to the authority, or are marked as test.', 'Die Instanz ist ein Testsystem: Meldungen gehen nicht an die Behörde oder werden als Test markiert.', 'L\'instance est un système de test : les déclarations ne sont pas transmises à l\'administration ou sont marquées test.', 'De instantie is een testsysteem: meldingen gaan niet naar de overheid of worden als test gemarkeerd.')],
  ['FileWatch_path', undefined, h('Network path of the watched folder (file interface).', 'Netzwerkpfad des überwachten Ordners (Dateischnittstelle).', 'Chemin réseau du dossier surveillé (interface fichiers).', 'Netwerkpad van de bewaakte map (bestandsinterface).')],
  ['Fiscal_ApiKey', 'PT', h('Fiscal partner reference; needs a restart.', 'Referenz des Fiskalpartners; Neustart nötig.', 'Référence du partenaire fiscal ; redémarrage nécessaire.', 'Referentie van de fiscale partner; herstart nodig.')],
  ['Fiscal_BackupAt', 'DE', h('Time of the daily TSE backup (default 04:00).', 'Uhrzeit der täglichen TSE-Sicherung (Standard 04:00).', 'Heure de la sauvegarde quotidienne de la TSE (par défaut 04:00).', 'Tijdstip van de dagelijkse TSE-back-up (standaard 04:00).')],
  ['Fiscal_acceptUnauthorized', 'CZ', h('Workaround for incomplete certificate chains; not for general use.', 'Notlösung für unvollständige Zertifikatsketten; nicht für den allgemeinen Gebrauch.', 'Contournement pour les chaînes de certificats incomplètes ; pas pour un usage général.', 'Noodoplossing voor onvolledige certificaatketens; niet voor algemeen gebruik.')],
  ['Fiscal_Log', undefined, h('Writes a fiscal XML log per transaction.', 'Schreibt je Transaktion ein fiskalisches XML-Protokoll.', 'Écrit un journal XML fiscal par transaction.', 'Schrijft per transactie een fiscaal XML-logboek.')],
  ['Fiscal_Rules', 'FR, SK', h('Fiscal rule set.', 'Fiskalischer Regelsatz.', 'Jeu de règles fiscales.', 'Fiscale regelset.')],
  ['Fiscal_Test', 'AT, CZ, DE, FR, HR, SI, SK', h('AT: transactions are processed as training. CZ, DE, FR, HR, SI, SK: report to the authority\'s test system.', 'AT: Transaktionen werden als Training verarbeitet. CZ, DE, FR, HR, SI, SK: Meldung an das Testsystem der Behörde.', 'AT : les transactions sont traitées comme formation. CZ, DE, FR, HR, SI, SK : déclaration au système de test de l\'administration.', 'AT: transacties worden als training verwerkt. CZ, DE, FR, HR, SI, SK: melden aan het testsysteem van de overheid.')],
  ['Fiscal_Timeout', 'AT, CZ, DE, HR, IT, SI, SK', h('Timeout in ms for fiscal processing.', 'Zeitlimit in ms für die fiskalische Verarbeitung.', 'Délai en ms du traitement fiscal.', 'Time-out in ms voor de fiscale verwerking.')],
  ['Fiscal_YearEnd', 'FR', h('Month (01-12, default 12) of the year-closing audit code.', 'Monat (01-12, Standard 12) des Jahresabschluss-Prüfcodes.', 'Mois (01-12, par défaut 12) du code d\'audit de clôture annuelle.', 'Maand (01-12, standaard 12) van de auditcode van de jaarafsluiting.')],
  ['Fiscal_ZLaunch', undefined, h('Inserts a Z report before the first transaction of a new ESR.D date.', 'Fügt vor der ersten Transaktion eines neuen ESR.D-Datums einen Z-Bericht ein.', 'Insère un rapport Z avant la première transaction d\'une nouvelle date ESR.D.', 'Voegt een Z-rapport in vóór de eerste transactie van een nieuwe ESR.D-datum.')],
  [['Fis_Certification', 'Fis_Sec'], 'FR', h('Certification number in the Code tag (defaults B0000 or 00000-0; none omits it; Fis_Sec wins).', 'Zertifizierungsnummer im Code-Tag (Standard B0000 oder 00000-0; none lässt sie weg; Fis_Sec hat Vorrang).', 'Numéro de certification dans la balise Code (par défaut B0000 ou 00000-0 ; none l\'omet ; Fis_Sec l\'emporte).', 'Certificeringsnummer in de Code-tag (standaard B0000 of 00000-0; none laat het weg; Fis_Sec gaat voor).')],
  ['Fis_Code', 'CZ', h('Delivers the PKP in Fis Code.', 'Liefert den PKP in Fis Code.', 'Fournit le PKP dans Fis Code.', 'Levert de PKP in Fis Code.')],
  ['Fis_OCR', 'AT', h('Adds the BASE32 OCR string to Fis.', 'Fügt Fis die BASE32-OCR-Zeichenfolge hinzu.', 'Ajoute la chaîne OCR BASE32 à Fis.', 'Voegt de BASE32-OCR-tekenreeks toe aan Fis.')],
  ['Fis_QR', 'AT, DE, SI', h('Adds a base64 QR image to Fis; value like type=png&size=2&ec_level=L.', 'Fügt Fis ein QR-Bild in base64 hinzu; Wert z. B. type=png&size=2&ec_level=L.', 'Ajoute une image QR en base64 à Fis ; valeur p. ex. type=png&size=2&ec_level=L.', 'Voegt een QR-afbeelding in base64 toe aan Fis; waarde bv. type=png&size=2&ec_level=L.')],
  ['Fis_Tot', undefined, h('Includes the fiscal grand totals in Fis.', 'Nimmt die fiskalischen Gesamtsummen in Fis auf.', 'Inclut les grands totaux fiscaux dans Fis.', 'Neemt de fiscale eindtotalen op in Fis.')],
  ['FN_series', 'PT', h('Series letter A-Z (not M) after a POS replacement.', 'Serienbuchstabe A-Z (nicht M) nach einem Kassentausch.', 'Lettre de série A-Z (sauf M) après un remplacement de caisse.', 'Reeksletter A-Z (niet M) na vervanging van de kassa.')],
  ['HttpServer_Disable', undefined, h('Does not start the web server (file interface only).', 'Startet den Webserver nicht (nur Dateischnittstelle).', 'Ne démarre pas le serveur web (interface fichiers uniquement).', 'Start de webserver niet (alleen bestandsinterface).')],
  ['HttpServer_IPv4', undefined, h('Listens on IPv4.', 'Lauscht auf IPv4.', 'Écoute en IPv4.', 'Luistert op IPv4.')],
  ['HttpServer_respond102', undefined, h('Interval in ms of the interim status 102 (default 9000).', 'Intervall in ms des Zwischenstatus 102 (Standard 9000).', 'Intervalle en ms du statut intermédiaire 102 (par défaut 9000).', 'Interval in ms van de tussenstatus 102 (standaard 9000).')],
  ['HttpServer_respond200', undefined, h('Answers HTTP 200 also for BAD and NO.', 'Antwortet auch bei BAD und NO mit HTTP 200.', 'Répond HTTP 200 aussi pour BAD et NO.', 'Antwoordt ook bij BAD en NO met HTTP 200.')],
  [['HttpServer_AllowOrigin', 'HttpServer_AllowCredentials'], undefined, h('Sets CORS headers.', 'Setzt CORS-Header.', 'Définit les en-têtes CORS.', 'Zet CORS-headers.')],
  ['HttpServer_Hosts', undefined, h('Further host names browsers may address the service by (IP addresses, localhost and this machine\'s name always work).', 'Weitere Hostnamen, unter denen Browser den Dienst ansprechen dürfen (IP-Adressen, localhost und der Name dieses Rechners gelten immer).', 'Autres noms d\'hôte sous lesquels les navigateurs peuvent joindre le service (adresses IP, localhost et le nom de cette machine valent toujours).', 'Verdere hostnamen waarmee browsers de dienst mogen aanspreken (IP-adressen, localhost en de naam van deze machine gelden altijd).')],
  ['IO_debug', undefined, h('IO logging.', 'IO-Protokollierung.', 'Journalisation des E/S.', 'IO-logging.')],
  ['IO_nosync', undefined, h('Skips the disk sync.', 'Überspringt die Synchronisierung mit der Festplatte.', 'Omet la synchronisation disque.', 'Slaat de schijfsynchronisatie over.')],
  ['IO_DeferTimeout', undefined, h('Deferred journal writing in ms (default 1000).', 'Verzögertes Journalschreiben in ms (Standard 1000).', 'Écriture différée du journal en ms (par défaut 1000).', 'Uitgesteld schrijven van het journaal in ms (standaard 1000).')],
  ['Log_debug', undefined, h('Log size.', 'Protokollgröße.', 'Taille du journal.', 'Grootte van het logboek.')],
  ['Log_length', undefined, h('Length of a log line.', 'Länge einer Protokollzeile.', 'Longueur d\'une ligne du journal.', 'Lengte van een logregel.')],
  ['Log_remove', undefined, h('Regular expression of items stripped from the log.', 'Regulärer Ausdruck der Einträge, die aus dem Protokoll entfernt werden.', 'Expression régulière des éléments retirés du journal.', 'Reguliere expressie van items die uit het logboek worden verwijderd.')],
  ['Normalize_D', undefined, h('Days for the ESR.D validation (default 7).', 'Tage für die Prüfung von ESR.D (Standard 7).', 'Jours pour la validation de ESR.D (par défaut 7).', 'Dagen voor de controle van ESR.D (standaard 7).')],
  ['Print_Log', undefined, h('Writes a print check file.', 'Schreibt eine Druckprüfdatei.', 'Écrit un fichier de contrôle d\'impression.', 'Schrijft een afdrukcontrolebestand.')],
  ['Printer', undefined, h('Printer driver: escpos (network ESC/POS printer), virtual (writes to a file), none.', 'Druckertreiber: escpos (ESC/POS-Netzwerkdrucker), virtual (schreibt in eine Datei), none.', 'Pilote d\'imprimante : escpos (imprimante ESC/POS réseau), virtual (écrit dans un fichier), none.', 'Printerstuurprogramma: escpos (ESC/POS-netwerkprinter), virtual (schrijft naar een bestand), none.')],
  ['Printer_Port', undefined, h('Connection of the printer: host[:port] (default port 9100).', 'Anschluss des Druckers: host[:port] (Standardport 9100).', 'Connexion de l\'imprimante : hôte[:port] (port 9100 par défaut).', 'Aansluiting van de printer: host[:poort] (standaardpoort 9100).')],
  ['Display_Port', undefined, h('host[:port] of a customer display with its own TCP port; without it the display on the printer\'s display port is used.', 'host[:port] einer Kundenanzeige mit eigenem TCP-Port; ohne diese Angabe wird die Anzeige am Display-Anschluss des Druckers verwendet.', 'hôte[:port] d\'un afficheur client avec son propre port TCP ; sinon l\'afficheur branché sur l\'imprimante est utilisé.', 'host[:poort] van een klantdisplay met een eigen TCP-poort; zonder deze waarde wordt het display aan de printer gebruikt.')],
  ['Drawer_Timeout', undefined, h('Seconds POST /peri/drawer/wait waits at most for the drawer to close (1 to 3600, default 300).', 'Sekunden, die POST /peri/drawer/wait höchstens auf das Schließen der Lade wartet (1 bis 3600, Standard 300).', 'Secondes pendant lesquelles POST /peri/drawer/wait attend au plus la fermeture du tiroir (1 à 3600, 300 par défaut).', 'Seconden die POST /peri/drawer/wait hoogstens wacht tot de lade dicht is (1 tot 3600, standaard 300).')],
  ['Printer_Log', undefined, h('Trace of the printer communication.', 'Mitschnitt der Druckerkommunikation.', 'Trace de la communication avec l\'imprimante.', 'Tracering van de printercommunicatie.')],
  ['Recorder_init', undefined, h('Delay in ms before the cloud connection starts (default 10000).', 'Verzögerung in ms bis zum Aufbau der Cloud-Verbindung (Standard 10000).', 'Délai en ms avant la connexion au cloud (par défaut 10000).', 'Vertraging in ms voor de cloudverbinding start (standaard 10000).')],
  ['Recorder_Log', undefined, h('Logs the cloud communication.', 'Protokolliert die Cloud-Kommunikation.', 'Journalise la communication avec le cloud.', 'Logt de cloudcommunicatie.')],
  ['Register_disable', 'AT', h('Not a registration instance (sign server).', 'Keine Registrierinstanz (Signaturserver).', 'Pas une instance d\'enregistrement (serveur de signature).', 'Geen registratie-instantie (ondertekeningsserver).')],
  [['SC_disable', 'SC_ignore', 'SC_Log'], 'AT', h('Smartcard handling.', 'Umgang mit der Signaturkarte.', 'Gestion de la carte à puce.', 'Afhandeling van de smartcard.')],
  ['Sign_debug', 'AT', h('Extra logging of web requests.', 'Zusätzliche Protokollierung der Webanfragen.', 'Journalisation supplémentaire des requêtes web.', 'Extra logging van webverzoeken.')],
  ['SignServer', 'AT, DE', h('Acts as sign server for other instances in the LAN.', 'Arbeitet als Signaturserver für andere Instanzen im LAN.', 'Sert de serveur de signature aux autres instances du réseau local.', 'Werkt als ondertekeningsserver voor andere instanties in het LAN.')],
  ['SoftwareProvider', undefined, h('Provider of the POS software, for the cloud hierarchy.', 'Anbieter der Kassensoftware, für die Cloud-Hierarchie.', 'Fournisseur du logiciel de caisse, pour la hiérarchie cloud.', 'Leverancier van de kassasoftware, voor de cloudhiërarchie.')],
  ['TEST_Verify_err', 'CZ, SI, SK', h('Tests an invalid signed response.', 'Testet eine ungültig signierte Antwort.', 'Teste une réponse signée invalide.', 'Test een ongeldig ondertekend antwoord.')],
  ['TEST_RC', undefined, h('Forces a BAD or NO answer, e.g. test_rc=NO.', 'Erzwingt eine Antwort BAD oder NO, z. B. test_rc=NO.', 'Force une réponse BAD ou NO, p. ex. test_rc=NO.', 'Dwingt een antwoord BAD of NO af, bv. test_rc=NO.')],
  ['Tra_DH', undefined, h('Includes the document handle in the /register answer (online mode).', 'Nimmt das Dokument-Handle in die Antwort von /register auf (Online-Modus).', 'Inclut l\'identifiant du document dans la réponse de /register (mode en ligne).', 'Neemt de documenthandle op in het antwoord van /register (onlinemodus).')],
  [['TSE_AdminPin', 'TSE_AdminPuk', 'TSE_TimePin', 'TSE_TimePuk'], 'DE', h('TSE credentials.', 'Zugangsdaten der TSE.', 'Identifiants de la TSE.', 'Toegangsgegevens van de TSE.')],
  ['TSE_BackupAt', 'DE', h('TSE backup time (default random between 03:10:00 and 04:10:00; NO disables it).', 'Uhrzeit der TSE-Sicherung (Standard zufällig zwischen 03:10:00 und 04:10:00; NO schaltet sie ab).', 'Heure de sauvegarde de la TSE (par défaut aléatoire entre 03:10:00 et 04:10:00 ; NO la désactive).', 'Tijdstip van de TSE-back-up (standaard willekeurig tussen 03:10:00 en 04:10:00; NO schakelt uit).')],
  ['TSE_BackupDelete', 'DE', h('Exports and deletes after each Z report (NFS Z).', 'Exportiert und löscht nach jedem Z-Bericht (NFS Z).', 'Exporte et supprime après chaque rapport Z (NFS Z).', 'Exporteert en verwijdert na elk Z-rapport (NFS Z).')],
  ['TSE_install', 'DE', h('NO blocks the automatic driver installation.', 'NO verhindert die automatische Treiberinstallation.', 'NO bloque l\'installation automatique du pilote.', 'NO blokkeert de automatische installatie van het stuurprogramma.')],
  ['TSE_KeepAlive', 'DE', h('Polling interval in seconds (default 10).', 'Abfrageintervall in Sekunden (Standard 10).', 'Intervalle d\'interrogation en secondes (par défaut 10).', 'Pollinginterval in seconden (standaard 10).')],
  [['TSE_MountPoint', 'TSE_PortScan'], 'DE', h('Where the TSE is found.', 'Wo die TSE zu finden ist.', 'Où se trouve la TSE.', 'Waar de TSE te vinden is.')],
  ['TSE_SelfTestAt', 'DE', h('Self-test time (default 03:05:00).', 'Uhrzeit des Selbsttests (Standard 03:05:00).', 'Heure de l\'autotest (par défaut 03:05:00).', 'Tijdstip van de zelftest (standaard 03:05:00).')],
  ['UdpServer_disable', 'AT', h('Blocks the sign server action and the signature as client.', 'Sperrt die Signaturserver-Funktion und die Signatur als Client.', 'Bloque l\'action de serveur de signature et la signature en tant que client.', 'Blokkeert de ondertekeningsserver en de ondertekening als client.')],
  // profile settings the spec names besides the table
  ['HttpServer_Port', undefined, h('Port of the web server (default 5618). Setting it by environment variable restarts the service.', 'Port des Webservers (Standard 5618). Über eine Umgebungsvariable gesetzt, startet der Dienst neu.', 'Port du serveur web (par défaut 5618). Défini par variable d\'environnement, le service redémarre.', 'Poort van de webserver (standaard 5618). Ingesteld via een omgevingsvariabele herstart de dienst.')],
  ['UdpServer_Port', undefined, h('Port for UDP messages; without it the service opens no UDP socket.', 'Port für UDP-Nachrichten; ohne ihn öffnet der Dienst keinen UDP-Socket.', 'Port des messages UDP ; sans lui, le service n\'ouvre aucun socket UDP.', 'Poort voor UDP-berichten; zonder deze opent de dienst geen UDP-socket.')],
  ['DiskQuota', undefined, h('Disk space the service may use, in MB (default 1024).', 'Speicherplatz, den der Dienst belegen darf, in MB (Standard 1024).', 'Espace disque que le service peut utiliser, en Mo (par défaut 1024).', 'Schijfruimte die de dienst mag gebruiken, in MB (standaard 1024).')],
  ['Proxy', undefined, h('Proxy for the connection to the cloud, e.g. http://proxy:3128.', 'Proxy für die Verbindung zur Cloud, z. B. http://proxy:3128.', 'Proxy pour la connexion au cloud, p. ex. http://proxy:3128.', 'Proxy voor de verbinding met de cloud, bv. http://proxy:3128.')],
  // attributes the service reads besides (recorder/recorder.ts)
  ['Portal_Url', undefined, h('Address of the portal the instance activates at (default: the environment variable EFR_PORTAL_URL).', 'Adresse des Portals, bei dem sich die Instanz aktiviert (Standard: die Umgebungsvariable EFR_PORTAL_URL).', 'Adresse du portail auprès duquel l\'instance s\'active (par défaut : la variable d\'environnement EFR_PORTAL_URL).', 'Adres van het portaal waarbij de instantie zich activeert (standaard: de omgevingsvariabele EFR_PORTAL_URL).')],
  ['TL', undefined, h('Location id (TL) sent with the activation when the Badge does not carry it (Badge/TL/TT).', 'Standortkennung (TL), die bei der Aktivierung gesendet wird, wenn der Badge sie nicht enthält (Badge/TL/TT).', 'Identifiant d\'établissement (TL) envoyé à l\'activation quand le badge ne le contient pas (Badge/TL/TT).', 'Vestigingscode (TL) die bij de activering wordt verstuurd als de badge die niet bevat (Badge/TL/TT).')],
  ['TT', undefined, h('Terminal id (TT) sent with the activation when the Badge does not carry it (Badge/TL/TT).', 'Kassenkennung (TT), die bei der Aktivierung gesendet wird, wenn der Badge sie nicht enthält (Badge/TL/TT).', 'Identifiant de terminal (TT) envoyé à l\'activation quand le badge ne le contient pas (Badge/TL/TT).', 'Terminalcode (TT) die bij de activering wordt verstuurd als de badge die niet bevat (Badge/TL/TT).')],
  ['Sign_require', undefined, h('Profile setting named by the specification; its effect is not described there.', 'In der Spezifikation genannte Profileinstellung; ihre Wirkung ist dort nicht beschrieben.', 'Paramètre de profil cité par la spécification ; son effet n\'y est pas décrit.', 'Profielinstelling die de specificatie noemt; het effect wordt daar niet beschreven.')],
  ['Sign_Cfg', undefined, h('Profile setting named by the specification; its effect is not described there.', 'In der Spezifikation genannte Profileinstellung; ihre Wirkung ist dort nicht beschrieben.', 'Paramètre de profil cité par la spécification ; son effet n\'y est pas décrit.', 'Profielinstelling die de specificatie noemt; het effect wordt daar niet beschreven.')],
];

export const ATTRIBUTE_HELP: readonly AttributeHelp[] = rows.flatMap(([names, countries, help]) =>
  (Array.isArray(names) ? names : [names]).map((name) => (countries ? { name, countries, help } : { name, help })),
);

const byLower = new Map(ATTRIBUTE_HELP.map((a) => [a.name.toLowerCase(), a]));

/** The help of an attribute (any spelling), undefined for a name the spec does not know. */
export function attributeHelp(name: string): AttributeHelp | undefined {
  return byLower.get(name.toLowerCase());
}

/** The spec's spelling of a known attribute; an unknown name as given. */
export function attributeName(name: string): string {
  return attributeHelp(name)?.name ?? name;
}
