"""Realistic replies to deadmail's notification mails, in English, Italian and Polish, with the text a reply
stripper should keep: what ``server.text.grammar.strip_reply`` is tested against (test_reply_corpus.py) and what
``bench/reply_stripping.py`` measures it and the ``mail-parser-reply`` library with.

Every reply body the other tests use, and replies written after what Gmail, Outlook (desktop, web, mobile), Apple
Mail and iOS Mail, Thunderbird, Yahoo, Windows Mail, Samsung Email and Italian and Polish webmails write in each
language: top-posted, bottom-posted (inline) and empty replies, and text that ``mail.replies.html_to_text`` made
of HTML-only replies.
"""

from __future__ import annotations

from dataclasses import dataclass


def lines_of(text: str) -> list[str]:
    """The non-blank lines of a text, without surrounding whitespace."""
    return [line.strip() for line in text.splitlines() if line.strip()]


LANGS = ("en", "it", "pl")


@dataclass(frozen=True)
class Case:
    """One reply body, its language and the text a stripper should keep (``command``: the line that must stay)."""

    name: str
    lang: str
    body: str
    kept: str
    command: str | None = None

    @property
    def command_line(self) -> str | None:
        """The given command line, else the first line of the kept text (None for an empty reply)."""
        if self.command is not None:
            return self.command
        lines = lines_of(self.kept)
        return lines[0] if lines else None


# --- corpus: the mails players answer -----------------------------------------------------------------------------

#: The notice mail's lines (templates/mail/notice.txt and translations/*/messages.po), per language.
NOTICE = {
    "en": (
        "Hello {name},",
        "Your decision: {what}",
        "Deadline: Tue 4 Nov 2026 10:00 (in 1 day)",
        "Reply with one of these lines:",
        "Quoting this mail in your reply is fine: only the first command line is read.",
        "Your game page: https://deadmail.example/s/Qm7xT2",
        "Your preferences (language, time zone, quiet hours, one mail or a digest): https://deadmail.example/p/Zt5",
    ),
    "it": (
        "Ciao {name},",
        "La tua decisione: {what}",
        "Scadenza: mar 4 nov 2026 10:00 (tra 1 giorno)",
        "Rispondi con una di queste righe:",
        "Puoi citare questa mail nella risposta: viene letta solo la prima riga con un comando.",
        "La pagina della tua partita: https://deadmail.example/s/Qm7xT2",
        "Le tue preferenze (lingua, fuso orario, ore di silenzio, una mail per evento o un riepilogo): "
        "https://deadmail.example/p/Zt5",
    ),
    "pl": (
        "Cześć, {name}!",
        "Twoja decyzja: {what}",
        "Termin: wt., 4 lis 2026 10:00 (za 1 dzień)",
        "Odpowiedz jedną z tych linii:",
        "Możesz zacytować tę wiadomość w odpowiedzi: czytana jest tylko pierwsza linia z poleceniem.",
        "Strona Twojej gry: https://deadmail.example/s/Qm7xT2",
        "Twoje ustawienia (język, strefa czasowa, godziny ciszy, wiadomość o każdym zdarzeniu lub podsumowanie): "
        "https://deadmail.example/p/Zt5",
    ),
}
NAMES = {"en": "Ann", "it": "Marco", "pl": "Ania"}
#: Every command line a notice below lists (a kept quoted one would be read as the player's command).
COMMANDS: set[str] = set()


def notice(lang: str, what: str, options: list[str]) -> str:
    """A notification mail as the players get it (plain text)."""
    hello, decision, deadline, heading, note, page, prefs = NOTICE[lang]
    lines = [hello.format(name=NAMES[lang]), "", decision.format(what=what), deadline, "", heading]
    lines += [f"    {option}" for option in options]
    COMMANDS.update(options)
    lines += ["", note, "", page, "", "-- ", prefs]
    return "\n".join(lines) + "\n"


def quoted(text: str) -> str:
    """``text`` quoted as Gmail, Thunderbird and Apple Mail quote it."""
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines()) + "\n"


def inline(lang: str, attribution: str | None, original: str, own: str) -> str:
    """A bottom-posted reply: the quote down to the command list, the player's line, then the rest quoted."""
    cut = original.index("\n\n", original.index(NOTICE[lang][3]))
    head = (attribution + "\n" if attribution else "") + quoted(original[:cut])
    return head + "\n" + own + "\n\n" + quoted(original[cut + 2 :])


def top(own: str, separator: str, original: str) -> str:
    """A top-posted reply: the player's text, a blank line, the client's separator and the original below it."""
    return f"{own}\n\n{separator}\n{original}"


EN_VOTE = notice("en", "vote for the Chief of Security", ["VOTE RED", "VOTE YELLOW", "VOTE BLUE"])
EN_GO = notice("en", "announce where your character goes", [f"GO {n}" for n in range(1, 7)])
EN_CARDS = notice("en", "play cards or pass", ["PASS", "PLAY AXE", "PLAY HIDDEN PINUP"])
IT_VOTE = notice("it", "vota per il capo della sicurezza", ["VOTA ROSSO", "VOTA GIALLO", "VOTA BLU"])
IT_GO = notice("it", "annuncia dove va il tuo personaggio", [f"VAI {n}" for n in range(1, 7)])
IT_PLACE = notice("it", "piazza un personaggio", ["PIAZZA BRUTO 1", "PIAZZA BRUTO 3", "PIAZZA BIONDA 3"])
IT_MOVE = notice("it", "muovi un personaggio", ["MUOVI BIONDA", "MUOVI BIONDA SPRINT 3", "MUOVI BRUTO"])
IT_VICTIM = notice("it", "scegli la vittima", ["VITTIMA BRUTO", "VITTIMA UOMO CON LA PISTOLA"])
IT_ZOMBIE = notice("it", "scegli dove arriva lo zombi", ["ZOMBI 1", "ZOMBI 4"])
IT_CARDS = notice("it", "gioca carte o passa", ["PASSO", "GIOCA GRANATA", "GIOCA NASCONDERSI BIONDA"])
IT_TRUCK = notice("it", "il camion", ["TIENI ASCIA DAI SPRINT A BLU", "TIENI SPRINT DAI ASCIA A BLU"])
PL_VOTE = notice("pl", "zagłosuj na szefa ochrony", ["GŁOSUJ CZERWONY", "GŁOSUJ ŻÓŁTY", "GŁOSUJ NIEBIESKI"])
PL_GO = notice("pl", "ogłoś, dokąd idzie Twoja postać", [f"IDŹ {n}" for n in range(1, 7)])
PL_PLACE = notice("pl", "postaw postać", ["POSTAW TWARDZIEL 1", "POSTAW TWARDZIEL 3", "POSTAW STRZELEC 3"])
PL_MOVE = notice("pl", "rusz postać", ["RUSZ ŚLICZNA LALUNIA", "RUSZ ŚLICZNA LALUNIA SPRINT 3", "RUSZ TWARDZIEL"])
PL_VICTIM = notice("pl", "wybierz ofiarę", ["OFIARA TWARDZIEL", "OFIARA STRZELEC"])
PL_ZOMBIE = notice("pl", "wybierz, gdzie przyjdzie zombie", ["ZOMBIE 1", "ZOMBIE 4"])
PL_CARDS = notice("pl", "zagraj karty albo spasuj", ["PAS", "ZAGRAJ GRANAT", "ZAGRAJ UKRYCIE ŚLICZNA LALUNIA"])
PL_TRUCK = notice(
    "pl",
    "ciężarówka",
    ["ZATRZYMAJ SIEKIERA DAJ SPRINT DLA NIEBIESKIEGO", "ZATRZYMAJ SPRINT DAJ SIEKIERA DLA NIEBIESKIEGO"],
)

# Attributions and header blocks as the clients write them (a long sender name makes Gmail wrap the line).
ADDRESS = "deadmail <game-7@deadmail.example>"
LONG = "Deadmail Mall of Horror <\ngame-7+k3J9@deadmail.example>"
GMAIL_EN = f"On Mon, 3 Nov 2026 at 10:00, {ADDRESS} wrote:"
APPLE_EN = f"On 3 Nov 2026, at 10:00, {ADDRESS} wrote:"
YAHOO_EN = f"On Monday, 3 November 2026 at 10:00:00 GMT, {ADDRESS} wrote:"
THUNDERBIRD_EN = "On 03/11/2026 10:00, deadmail wrote:"
GMAIL_IT = f"Il giorno lun 3 nov 2026 alle ore 10:00 {ADDRESS} ha scritto:"
GMAIL_IT_WRAPPED = f"Il giorno lun 3 nov 2026 alle ore 10:00 {LONG} ha scritto:"
APPLE_IT = f"Il giorno 3 nov 2026, alle ore 10:00, {ADDRESS} ha scritto:"
YAHOO_IT = f"Il lunedì 3 novembre 2026, 10:00:00 CET, {ADDRESS} ha scritto:"
THUNDERBIRD_IT = "Il 03/11/2026 10:00, deadmail ha scritto:"
GMAIL_PL = f"pon., 3 lis 2026 o 10:00 {ADDRESS} napisał(a):"
GMAIL_PL_WRAPPED = f"pon., 3 lis 2026 o 10:00 {LONG} napisał(a):"
GMAIL_PL_OLD = f"W dniu 3 listopada 2026 10:00 użytkownik {ADDRESS} napisał:"
APPLE_PL = f"Wiadomość napisana przez {ADDRESS} w dniu 3 lis 2026, o godz. 10:00:"
WEBMAIL_PL = f"Dnia 3 listopada 2026 10:00 {ADDRESS} napisał(a):"
THUNDERBIRD_PL = "W dniu 3.11.2026 o 10:00, deadmail pisze:"
RULE = "_" * 32
OUTLOOK_EN = (
    f"From: {ADDRESS}\nSent: Monday, November 3, 2026 10:00 AM\nTo: Ann <ann@example.org>\nSubject: Your turn\n"
)
OUTLOOK_IT = (
    f"Da: {ADDRESS}\nInviato: lunedì 3 novembre 2026 10:00\nA: Marco Rossi <marco@example.it>\nOggetto: Tocca a te\n"
)
OUTLOOK_PL = (
    f"Od: {ADDRESS}\nWysłane: poniedziałek, 3 listopada 2026 10:00\nDo: Ania <ania@example.pl>\nTemat: Twoja kolej\n"
)

# The tests' own original (tests/server/test_reply_grammar.py ORIGINAL).
T_ORIGINAL = "Round 2: the Chief election. You must vote.\n\nReply with one of these lines:\n    VOTE RED\n"
T_ORIGINAL += "    VOTE YELLOW\n    VOTE BLUE\n"
T_QUOTED = quoted(T_ORIGINAL)
COMMANDS.update(["VOTE RED", "VOTE YELLOW", "VOTE BLUE", "PASS"])
T_GAMES = "deadmail <games@deadmail.example>"

CORPUS = [
    # tests/server/test_reply_grammar.py REPLIES and test_text_without_quotes_is_kept
    Case(
        "test_reply_grammar/gmail en",
        "en",
        "Vote blue\n\nOn Sun, Nov 22, 2026 at 9:14 AM Deadmail <game-7@deadmail.example> wrote:\n\n" + T_QUOTED,
        "Vote blue",
    ),
    Case(
        "test_reply_grammar/gmail en wrapped",
        "en",
        "VOTE BLUE\n\nOn Sun, Nov 22, 2026 at 9:14 AM Deadmail Mall of Horror <\ngame-7+abc@deadmail.example> "
        "wrote:\n\n" + T_QUOTED,
        "VOTE BLUE",
    ),
    Case(
        "test_reply_grammar/thunderbird en",
        "en",
        "VOTE BLUE\n\nOn 22/11/2026 09:14, Deadmail wrote:\n" + T_QUOTED,
        "VOTE BLUE",
    ),
    Case(
        "test_reply_grammar/outlook en",
        "en",
        "VOTE BLUE\r\n\r\nAnn\r\n\r\n-----Original Message-----\r\nFrom: Deadmail <game@deadmail.example>\r\n"
        "Sent: Sunday, November 22, 2026 9:14 AM\r\nTo: ann@example.org\r\nSubject: Mall of Horror\r\n\r\n"
        + T_ORIGINAL,
        "VOTE BLUE\n\nAnn",
    ),
    Case(
        "test_reply_grammar/outlook en new",
        "en",
        "vote blue\n\n" + RULE + "\nFrom: Deadmail <game@deadmail.example>\n"
        "Sent: Sunday, 22 November 2026 09:14\nTo: Ann\nSubject: Mall of Horror\n\n" + T_ORIGINAL,
        "vote blue",
    ),
    Case(
        "test_reply_grammar/outlook en headers only",
        "en",
        "VOTE BLUE\n\nFrom: Deadmail <game@deadmail.example>\nSent: Sunday\nTo: Ann\n\n" + T_ORIGINAL,
        "VOTE BLUE",
    ),
    Case("test_reply_grammar/signature", "en", "VOTE BLUE\n-- \nAnn Smith\nVOTE RED\n", "VOTE BLUE"),
    Case("test_reply_grammar/signature without space", "en", "VOTE BLUE\n--\nAnn\n", "VOTE BLUE"),
    Case("test_reply_grammar/mobile", "en", "VOTE BLUE\n\nSent from my iPhone\n\n" + T_QUOTED, "VOTE BLUE"),
    Case("test_reply_grammar/inline quote", "en", "> VOTE RED\n> VOTE YELLOW\nVOTE BLUE\n", "VOTE BLUE"),
    Case(
        "test_reply_grammar/text without quotes",
        "en",
        "VOTE BLUE\n\nI think blue is leading.\nOn the other hand, who knows.\n",
        "VOTE BLUE\n\nI think blue is leading.\nOn the other hand, who knows.",
    ),
    Case(
        "test_reply_grammar/gmail it",
        "it",
        "VOTA BLU\n\nIl giorno dom 22 nov 2026 alle ore 09:14 Deadmail <game@deadmail.example> ha scritto:\n\n"
        + T_QUOTED,
        "VOTA BLU",
    ),
    Case(
        "test_reply_grammar/thunderbird it",
        "it",
        "vota blu\n\nIl 22/11/2026 09:14, Deadmail ha scritto:\n" + T_QUOTED,
        "vota blu",
    ),
    Case(
        "test_reply_grammar/outlook it",
        "it",
        "VOTA BLU\n\n-----Messaggio originale-----\nDa: Deadmail <game@deadmail.example>\n"
        "Inviato: domenica 22 novembre 2026 09:14\nA: anna@example.org\nOggetto: Mall of Horror\n\n" + T_ORIGINAL,
        "VOTA BLU",
    ),
    Case(
        "test_reply_grammar/gmail pl",
        "pl",
        "GŁOSUJ NIEBIESKI\n\nndz., 22 lis 2026 o 09:14 Deadmail <game@deadmail.example> napisał(a):\n\n" + T_QUOTED,
        "GŁOSUJ NIEBIESKI",
    ),
    Case(
        "test_reply_grammar/thunderbird pl",
        "pl",
        "glosuj niebieski\n\nW dniu 22.11.2026 o 09:14, Deadmail pisze:\n" + T_QUOTED,
        "glosuj niebieski",
    ),
    Case(
        "test_reply_grammar/outlook pl",
        "pl",
        "GŁOSUJ NIEBIESKI\n\n-----Oryginalna wiadomość-----\nOd: Deadmail <game@deadmail.example>\n"
        "Wysłano: niedziela, 22 listopada 2026 09:14\nDo: ania@example.org\nTemat: Mall of Horror\n\n" + T_ORIGINAL,
        "GŁOSUJ NIEBIESKI",
    ),
    # tests/server/test_replies.py templates (command VOTE BLUE, first option VOTE RED)
    Case(
        "test_replies/gmail",
        "en",
        f"VOTE BLUE\n\nOn Sun, 23 Nov 2031 at 14:00, {T_GAMES} wrote:\n"
        "> It is your turn. Reply with one of these lines:\n>     VOTE RED\n>     VOTE BLUE\n",
        "VOTE BLUE",
    ),
    Case(
        "test_replies/signature",
        "en",
        "VOTE BLUE\nThanks!\n\nAnn\n--\nAnn Example | +39 055 000 000\n    VOTE RED\n",
        "VOTE BLUE\nThanks!\n\nAnn",
    ),
    Case("test_replies/outlook mobile", "en", "VOTE BLUE\n\nSent from my iPhone\n", "VOTE BLUE"),
    Case(
        "test_replies/outlook desktop",
        "en",
        f"VOTE BLUE\n\n{RULE}\nFrom: {T_GAMES}\nSent: Sunday, 23 November 2031 14:00\nTo: Ann <ann@example.org>\n"
        "Subject: Mall of Horror: your turn\n\nReply with one of these lines:\n    VOTE RED\n    VOTE BLUE\n",
        "VOTE BLUE",
    ),
    Case(  # GMAIL_HTML through server.services.replies.html_to_text (the blockquote is dropped)
        "test_replies/gmail html only",
        "en",
        f"\nVOTE BLUE\n\n\n\n\n\nOn Sun, 23 Nov 2031 at 14:00, {T_GAMES} wrote:\n\n\n\n\n\n",
        "VOTE BLUE",
    ),
    # tests/server/test_inbound.py (webhook JSON) and tests/worker/test_game_by_mail.py (reply_to)
    Case("test_inbound/webhook json", "en", "PLAY AXE\n\nOn Sunday deadmail wrote:\n> PASS\n", "PLAY AXE"),
    Case(
        "test_game_by_mail/reply_to",
        "en",
        "GO 3\n\nOn Sunday, deadmail wrote:\n" + "\n".join(f"> {line}" for line in EN_GO.splitlines()) + "\n",
        "GO 3",
    ),
    # English, written for this benchmark
    Case(
        "en/gmail greeting and thanks",
        "en",
        top("Hi,\n\nGO 3\n\nThanks,\nAnn", GMAIL_EN, "\n" + quoted(EN_GO)),
        "Hi,\n\nGO 3\n\nThanks,\nAnn",
        "GO 3",
    ),
    Case("en/apple mail", "en", top("GO 3", APPLE_EN, "\n" + quoted(EN_GO)), "GO 3"),
    Case(
        "en/iphone, attribution quoted",
        "en",
        "VOTE YELLOW\n\nSent from my iPhone\n\n" + quoted(APPLE_EN + "\n\n" + EN_VOTE),
        "VOTE YELLOW",
    ),
    Case("en/yahoo, original not quoted", "en", "PASS\n\n\n " + YAHOO_EN + "\n\n" + EN_CARDS, "PASS"),
    Case(
        "en/windows mail",
        "en",
        "VOTE BLUE\n\nSent from Mail for Windows\n\nFrom: deadmail\nSent: 03 November 2026 10:00\n"
        "To: ann@example.org\nSubject: Your turn\n\n" + EN_VOTE,
        "VOTE BLUE",
    ),
    Case(
        "en/outlook mobile",
        "en",
        top("GO 3", f"Get Outlook for Android<https://aka.ms/AAb9ysg>\n{RULE}\n{OUTLOOK_EN}", EN_GO),
        "GO 3",
    ),
    Case(
        "en/thunderbird inline (bottom-posted)", "en", inline("en", THUNDERBIRD_EN, EN_VOTE, "VOTE BLUE"), "VOTE BLUE"
    ),
    Case("en/gmail empty reply", "en", "\n\n" + GMAIL_EN + "\n\n" + quoted(EN_VOTE), ""),
    Case(  # an Outlook HTML-only reply through html_to_text: bold headers, original not quoted
        "en/outlook html only",
        "en",
        f"\nVOTE BLUE\n\n\n\n\n\n\n\n{OUTLOOK_EN}\n\n\n\nHello Ann,\n\nReply with one of these lines:\n"
        "VOTE RED\nVOTE BLUE\n\n\n",
        "VOTE BLUE",
    ),
    # Italian
    Case("it/gmail wrapped", "it", top("VAI 3", GMAIL_IT_WRAPPED, "\n" + quoted(IT_GO)), "VAI 3"),
    Case(
        "it/gmail signature",
        "it",
        top(
            "PIAZZA BRUTO 3\n\nMarco\n\n-- \nMarco Rossi\nVia dei Servi 12, Firenze", GMAIL_IT, "\n" + quoted(IT_PLACE)
        ),
        "PIAZZA BRUTO 3\n\nMarco",
    ),
    Case(
        "it/gmail, own line starting with Il",
        "it",
        top("VOTA BLU\nIl rosso ci ha già traditi due volte.\n\nMarco", GMAIL_IT, "\n" + quoted(IT_VOTE)),
        "VOTA BLU\nIl rosso ci ha già traditi due volte.\n\nMarco",
    ),
    Case("it/outlook", "it", top("MUOVI BIONDA SPRINT 3", f"{RULE}\n{OUTLOOK_IT}", IT_MOVE), "MUOVI BIONDA SPRINT 3"),
    Case(
        "it/outlook mobile",
        "it",
        top("VAI 3", f"Ottieni Outlook per Android<https://aka.ms/AAb9ysg>\n{RULE}\n{OUTLOOK_IT}", IT_GO),
        "VAI 3",
    ),
    Case(
        "it/samsung email",
        "it",
        "PASSO\n\n\n\nInviato dal mio dispositivo Galaxy\n\n\n-------- Messaggio originale --------\n"
        f"Da: {ADDRESS}\nData: 03/11/26 10:00 (GMT+01:00)\nA: marco@example.it\nOggetto: Tocca a te\n\n" + IT_CARDS,
        "PASSO",
    ),
    Case(
        "it/libero mail",
        "it",
        "GIOCA GRANATA\n\n----Messaggio originale----\nDa: game-7@deadmail.example\nData: 3-nov-2026 10.00\n"
        "A: <marco@libero.it>\nOggetto: Tocca a te\n\n" + IT_CARDS,
        "GIOCA GRANATA",
    ),
    Case(
        "it/apple mail",
        "it",
        top("VITTIMA UOMO CON LA PISTOLA", APPLE_IT, "\n" + quoted(IT_VICTIM)),
        "VITTIMA UOMO CON LA PISTOLA",
    ),
    Case(
        "it/iphone, attribution quoted",
        "it",
        "ZOMBI 4\n\nInviato da iPhone\n\n" + quoted(APPLE_IT + "\n\n" + IT_ZOMBIE),
        "ZOMBI 4",
    ),
    Case("it/yahoo, original not quoted", "it", "VOTA BLU\n\n\n " + YAHOO_IT + "\n\n" + IT_VOTE, "VOTA BLU"),
    Case(
        "it/windows mail",
        "it",
        "VOTA GIALLO\n\nInviato da Posta per Windows\n\nDa: deadmail\nInviato: lunedì 3 novembre 2026 10:00\n"
        "A: marco@example.it\nOggetto: Tocca a te\n\n" + IT_VOTE,
        "VOTA GIALLO",
    ),
    Case("it/thunderbird inline (bottom-posted)", "it", inline("it", THUNDERBIRD_IT, IT_VOTE, "VOTA BLU"), "VOTA BLU"),
    Case("it/inline without attribution", "it", inline("it", None, IT_GO, "VAI 3"), "VAI 3"),
    Case("it/top-posted, quote without attribution", "it", "PASSO\n\n" + quoted(IT_CARDS), "PASSO"),
    Case(
        "it/thunderbird truck",
        "it",
        top("TIENI SPRINT DAI ASCIA A BLU\n\nCiao!", THUNDERBIRD_IT, quoted(IT_TRUCK)),
        "TIENI SPRINT DAI ASCIA A BLU\n\nCiao!",
    ),
    Case("it/gmail empty reply", "it", "\n" + GMAIL_IT + "\n\n" + quoted(IT_VOTE), ""),
    Case(  # a Gmail HTML-only reply through html_to_text
        "it/gmail html only",
        "it",
        f"\nGIOCA GRANATA\n\n\n\n\n{GMAIL_IT}\n\n\n\n\n\n\n\n",
        "GIOCA GRANATA",
    ),
    Case(  # an iPhone HTML-only reply through html_to_text (the attribution sits in the blockquote)
        "it/iphone html only",
        "it",
        "VAI 3\n\n\nInviato da iPhone\n\n\n\n\n\n\n\n\n\n",
        "VAI 3",
    ),
    # Polish
    Case("pl/gmail wrapped", "pl", top("IDŹ 3", GMAIL_PL_WRAPPED, "\n" + quoted(PL_GO)), "IDŹ 3"),
    Case(
        "pl/gmail, older attribution", "pl", top("GŁOSUJ ŻÓŁTY", GMAIL_PL_OLD, "\n" + quoted(PL_VOTE)), "GŁOSUJ ŻÓŁTY"
    ),
    Case(
        "pl/gmail signature",
        "pl",
        top(
            "OFIARA STRZELEC\n\nPozdrawiam\nAnia\n\n-- \nAnna Kowalska\ntel. 600 100 200",
            GMAIL_PL,
            "\n" + quoted(PL_VICTIM),
        ),
        "OFIARA STRZELEC\n\nPozdrawiam\nAnia",
    ),
    Case(
        "pl/thunderbird, own line starting with W dniu",
        "pl",
        top("ZAGRAJ GRANAT W RAZIE POTRZEBY\nW dniu finału mnie nie będzie.", THUNDERBIRD_PL, quoted(PL_CARDS)),
        "ZAGRAJ GRANAT W RAZIE POTRZEBY\nW dniu finału mnie nie będzie.",
    ),
    Case(
        "pl/outlook",
        "pl",
        top("RUSZ ŚLICZNA LALUNIA SPRINT 3", f"{RULE}\n{OUTLOOK_PL}", PL_MOVE),
        "RUSZ ŚLICZNA LALUNIA SPRINT 3",
    ),
    Case("pl/apple mail", "pl", top("GŁOSUJ NIEBIESKI", APPLE_PL, "\n" + quoted(PL_VOTE)), "GŁOSUJ NIEBIESKI"),
    Case(
        "pl/iphone, attribution quoted",
        "pl",
        "POSTAW TWARDZIEL 3\n\nWysłane z iPhone'a\n\n" + quoted(APPLE_PL + "\n\n" + PL_PLACE),
        "POSTAW TWARDZIEL 3",
    ),
    Case(
        "pl/windows mail",
        "pl",
        "ZOMBIE 4\n\nWysłane z aplikacji Poczta dla systemu Windows\n\nOd: deadmail\n"
        "Wysłano: poniedziałek, 3 listopada 2026 10:00\nDo: ania@example.pl\nTemat: Twoja kolej\n\n" + PL_ZOMBIE,
        "ZOMBIE 4",
    ),
    Case(
        "pl/samsung email",
        "pl",
        "IDŹ DO 3\n\n\n\n-------- Oryginalna wiadomość --------\n"
        f"Od: {ADDRESS}\nData: 03.11.2026 10:00 (GMT+01:00)\nDo: ania@example.pl\nTemat: Twoja kolej\n\n" + PL_GO,
        "IDŹ DO 3",
    ),
    Case("pl/webmail (Dnia … napisał(a):)", "pl", top("PAS", WEBMAIL_PL, "\n" + quoted(PL_CARDS)), "PAS"),
    Case("pl/thunderbird inline (bottom-posted)", "pl", inline("pl", THUNDERBIRD_PL, PL_GO, "IDŹ 3"), "IDŹ 3"),
    Case(
        "pl/inline without attribution",
        "pl",
        inline("pl", None, PL_CARDS, "ZAGRAJ UKRYCIE ŚLICZNA LALUNIA"),
        "ZAGRAJ UKRYCIE ŚLICZNA LALUNIA",
    ),
    Case("pl/top-posted, quote without attribution", "pl", "PAS\n\n" + quoted(PL_CARDS), "PAS"),
    Case(
        "pl/gmail truck",
        "pl",
        top("ZATRZYMAJ SPRINT DAJ SIEKIERA DLA NIEBIESKIEGO\n\nDzięki za grę!", GMAIL_PL, "\n" + quoted(PL_TRUCK)),
        "ZATRZYMAJ SPRINT DAJ SIEKIERA DLA NIEBIESKIEGO\n\nDzięki za grę!",
    ),
    Case("pl/gmail empty reply", "pl", "\n\n" + GMAIL_PL + "\n\n" + quoted(PL_VOTE), ""),
    Case(  # a Gmail HTML-only reply through html_to_text
        "pl/gmail html only",
        "pl",
        f"\n\nZAGRAJ UKRYCIE ŚLICZNA LALUNIA\n\n\n\n\nAnia\n\n\n\n\n{GMAIL_PL}\n\n\n\n\n\n\n\n",
        "ZAGRAJ UKRYCIE ŚLICZNA LALUNIA\n\nAnia",
    ),
    Case(  # an Outlook HTML-only reply through html_to_text: headers without a separator, original not quoted
        "pl/outlook html only",
        "pl",
        f"\nPOSTAW TWARDZIEL 3\n\n\n\n\n\n{OUTLOOK_PL}\n\n\n\nCześć, Ania!\n\nOdpowiedz jedną z tych linii:\n"
        "POSTAW TWARDZIEL 1\nPOSTAW TWARDZIEL 3\n\n\n",
        "POSTAW TWARDZIEL 3",
    ),
]
