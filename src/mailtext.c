/* mailtext: a decoded body to the sender's own lines (commands.md step 2),
 * HTML to text, charset conversion and UTF-8 hygiene. */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <string.h>

#include <libetpan/libetpan.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "i18n.h"
#include "mail.h"

#ifndef LUDUS_XML_SO
#define LUDUS_XML_SO	"libxml2.so.2"
#endif

/* libxml2 (and the ICU and C++ runtime it pulls in) is loaded with the
 * first HTML-only mail, not at every start of ludus deliver. */
static struct {
	int		 tried;
	htmlDocPtr	(*read)(const char *, int, const char *, const char *,
			    int);
	xmlNodePtr	(*root)(const xmlDoc *);
	void		(*free_doc)(xmlDocPtr);
} lx;

static int
mailtext_xml_load(void)
{
	void *h;

	if (lx.tried)
		return lx.read != NULL ? 0 : -1;
	lx.tried = 1;
	if ((h = dlopen(LUDUS_XML_SO, RTLD_NOW | RTLD_LOCAL)) == NULL)
		return -1;
	*(void **)&lx.read = dlsym(h, "htmlReadMemory");
	*(void **)&lx.root = dlsym(h, "xmlDocGetRootElement");
	*(void **)&lx.free_doc = dlsym(h, "xmlFreeDoc");
	if (lx.read == NULL || lx.root == NULL || lx.free_doc == NULL) {
		lx.read = NULL;
		dlclose(h);
		return -1;
	}
	return 0;
}

/* One line of the body, not NUL-terminated. */
struct line {
	const char	*s;
	size_t		 len;
};

static int
mailtext_space_at(const char *s, size_t len, size_t *w)
{
	const unsigned char *u = (const unsigned char *)s;

	if (len >= 1 && (u[0] == ' ' || u[0] == '\t' || u[0] == '\r' ||
	    u[0] == '\n' || u[0] == '\f' || u[0] == '\v')) {
		*w = 1;
		return 1;
	}
	/* U+00A0 no-break space: HTML-made text and some clients use it. */
	if (len >= 2 && u[0] == 0xc2 && u[1] == 0xa0) {
		*w = 2;
		return 1;
	}
	/* U+200B zero width space, U+200E/U+200F direction marks (around
	 * Arabic and Hebrew attributions), U+202F narrow no-break space (French
	 * "a écrit :"), U+FEFF byte order mark, U+1427 the mark Gmail's
	 * tracking adds on a line of its own; U+2066-U+2069, the isolates
	 * around the notation of our own right-to-left mails, when a player
	 * copies a move from one; U+202A-U+202E, the embeddings iOS puts
	 * around an Arabic device line. */
	if (len >= 3 && ((u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0x8b ||
	    u[2] == 0x8e || u[2] == 0x8f || (u[2] >= 0xaa && u[2] <= 0xaf))) ||
	    (u[0] == 0xe2 && u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9) ||
	    (u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) ||
	    (u[0] == 0xe1 && u[1] == 0x90 && u[2] == 0xa7))) {
		*w = 3;
		return 1;
	}
	return 0;
}

/* Trim both ends of a line in place (pointer and length). */
static struct line
mailtext_trim(struct line l)
{
	size_t w;

	while (l.len > 0 && mailtext_space_at(l.s, l.len, &w)) {
		l.s += w;
		l.len -= w;
	}
	for (;;) {
		if (l.len >= 1 && mailtext_space_at(l.s + l.len - 1, 1, &w))
			l.len--;
		else if (l.len >= 2 && mailtext_space_at(l.s + l.len - 2, 2,
		    &w) && w == 2)
			l.len -= 2;
		else if (l.len >= 3 && mailtext_space_at(l.s + l.len - 3, 3,
		    &w) && w == 3)
			l.len -= 3;
		else
			break;
	}
	return l;
}

static int
mailtext_starts(struct line l, const char *p)
{
	size_t n = strlen(p);

	return l.len >= n && memcmp(l.s, p, n) == 0;
}

static int
mailtext_starts_ci(struct line l, const char *p)
{
	size_t n = strlen(p);

	return l.len >= n && util_strncaseeq(l.s, p, n);
}

static int
mailtext_ends(struct line l, const char *p)
{
	size_t n = strlen(p);

	return l.len >= n && memcmp(l.s + l.len - n, p, n) == 0;
}

static int
mailtext_has(struct line l, int c)
{
	return memchr(l.s, c, l.len) != NULL;
}

static int
mailtext_words(struct line l)
{
	size_t i;
	int n = 0, in = 0;

	for (i = 0; i < l.len; i++) {
		if (l.s[i] == ' ' || l.s[i] == '\t')
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

/* A quoted line: '>' as most clients write it, '|' as some webmails do,
 * and the writer's initials before the '>' ("C> ", "JD> "), as Supercite and
 * some old clients write it. */
static int
mailtext_is_quote(struct line t)
{
	size_t i;

	if (t.len == 0)
		return 0;
	if (t.s[0] == '>')
		return 1;
	if (t.s[0] == '|')
		return t.len == 1 || t.s[1] == ' ' || t.s[1] == '|' ||
		    t.s[1] == '>';
	for (i = 0; i < t.len && i < 4 && isalpha((unsigned char)t.s[i]); i++)
		;
	return i >= 1 && i <= 3 && i < t.len && t.s[i] == '>' &&
	    (i + 1 == t.len || t.s[i + 1] == ' ' || t.s[i + 1] == '>');
}

static int
mailtext_ends_ci(struct line l, const char *p)
{
	size_t n = strlen(p);

	return l.len >= n && util_strncaseeq(l.s + l.len - n, p, n);
}

/* Does s (n bytes) contain p?  Linear in n for the short phrases used. */
static int
mailtext_contains(struct line l, const char *p)
{
	size_t n = strlen(p), i;

	for (i = 0; n > 0 && i + n <= l.len; i++)
		if (l.s[i] == p[0] && memcmp(l.s + i, p, n) == 0)
			return 1;
	return 0;
}

/* A digit at s: ASCII, or the Arabic-Indic (U+0660-U+0669) and the
 * Persian (U+06F0-U+06F9) ones that Arabic and Persian clients write dates
 * in.  Its length in bytes, 0 when none. */
static size_t
mailtext_digit_at(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (len >= 1 && isdigit(u[0]))
		return 1;
	if (len >= 2 && ((u[0] == 0xd9 && u[1] >= 0xa0 && u[1] <= 0xa9) ||
	    (u[0] == 0xdb && u[1] >= 0xb0 && u[1] <= 0xb9)))
		return 2;
	return 0;
}

/* Does a digit end at byte i (exclusive)? */
static int
mailtext_digit_before(const char *s, size_t i)
{
	return (i >= 1 && mailtext_digit_at(s + i - 1, 1)) ||
	    (i >= 2 && mailtext_digit_at(s + i - 2, 2) == 2);
}

/* A time or a date ("10:15", "18.30", "30.09", "١١:٠٩"): two digit groups
 * joined by ':' or '.'. */
static int
mailtext_has_time(struct line l)
{
	size_t i, a;

	for (i = 1; i + 2 < l.len; i++)
		if ((l.s[i] == ':' || l.s[i] == '.') &&
		    mailtext_digit_before(l.s, i) &&
		    (a = mailtext_digit_at(l.s + i + 1, l.len - i - 1)) > 0 &&
		    mailtext_digit_at(l.s + i + 1 + a, l.len - i - 1 - a) > 0)
			return 1;
	return 0;
}

static int
mailtext_has_digit(struct line l)
{
	size_t i;

	for (i = 0; i < l.len; i++)
		if (mailtext_digit_at(l.s + i, l.len - i))
			return 1;
	return 0;
}

/* A line ending in a colon (':' or the full-width '：'); *core is the text
 * before it, trimmed, so "a écrit :" (with a space or a no-break space) and
 * "a écrit:" read alike. */
static int
mailtext_colon(struct line t, struct line *core)
{
	*core = t;
	if (mailtext_ends(t, ":"))
		core->len -= 1;
	else if (mailtext_ends(t, "\xef\xbc\x9a"))
		core->len -= 3;
	else
		return 0;
	*core = mailtext_trim(*core);
	return 1;
}

/* "-- " and "--" alone: the signature separator; a line of underscores
 * ("__", Mailman's long rule) opens a mailing list's footer.  A "--" inside
 * a sentence is text. */
static int
mailtext_is_sigsep(struct line t)
{
	size_t i;

	if (t.len == 2 && t.s[0] == '-' && t.s[1] == '-')
		return 1;
	if (t.len < 2)
		return 0;
	for (i = 0; i < t.len; i++)
		if (t.s[i] != '_')
			return 0;
	return 1;
}

/* A horizontal rule of ten or more '-' (Outlook's reply separator) or '='
 * (French webmails' line above "Message du :"). */
static int
mailtext_is_rule(struct line t)
{
	size_t i;

	if (t.len < 10 || (t.s[0] != '-' && t.s[0] != '='))
		return 0;
	for (i = 0; i < t.len; i++)
		if (t.s[i] != t.s[0])
			return 0;
	return 1;
}

/* A dotted rule above a footer: five or more dots, middle dots ('·'),
 * ellipses ('…') or bullets ('•'), spaces between allowed. */
static int
mailtext_is_dotted_rule(struct line t)
{
	static const char *const dots[] = { ".", "\xc2\xb7", "\xe2\x80\xa2",
		"\xe2\x80\xa6", " " };
	size_t i = 0, k, n;
	int count = 0;

	while (i < t.len) {
		for (k = 0; k < nitems(dots); k++) {
			n = strlen(dots[k]);
			if (i + n <= t.len && memcmp(t.s + i, dots[k], n) == 0)
				break;
		}
		if (k == nitems(dots))
			return 0;
		/* An ellipsis is three dots. */
		count += k == 3 ? 3 : k != nitems(dots) - 1;
		i += strlen(dots[k]);
	}
	return count >= 5;
}

/* A line that may be a separator not in the tables: it opens with four or
 * more of one of '-', '=', '_', '~', '*' ("==== Message du : ...",
 * "-------- Оригинално писмо --------", "-----", "~~~~~~").  A sure
 * separator, a signature separator and "--Name" are told apart before. */
static int
mailtext_is_separator_like(struct line t)
{
	size_t i;

	if (t.len < 4 || strchr("-=_~*", t.s[0]) == NULL)
		return 0;
	for (i = 1; i < 4; i++)
		if (t.s[i] != t.s[0])
			return 0;
	return 1;
}

/* "Sent from my iPhone" and its kin, as the clients write them: a short line
 * without a comma that starts (or, where the language puts the verb last,
 * ends) with one of these. */
static const char *const mailtext_mobile_starts[] = {
	"Sent from ", "Sent with ", "Sent via ", "Sent using ",
	"Get Outlook for ",					/* English */
	"Von meinem ", "Gesendet von ", "Gesendet mit ",
	"Gesendet vom ", "Von Outlook ",			/* German */
	"Envoyé de mon ", "Envoyé depuis ", "Envoyé à partir de ",
	"Envoyé avec ", "Obtenir Outlook pour ",		/* French */
	/* Spanish, Portuguese */
	"Enviado desde ", "Enviado con ", "Obtener Outlook para ",
	"Enviado do ", "Enviado de ", "Enviado a partir d",
	"Enviado com ", "Obter o Outlook para ",
	"Inviato da ", "Inviato dal ", "Inviato con ",
	"Scarica Outlook per ",				/* Italian */
	"Verstuurd vanaf ", "Verzonden vanaf ", "Verzonden met ",
	"Verstuurd met ", "Outlook voor ", "Verzonden vanuit ",
	"Verstuurd vanuit ", "Download Outlook voor ",	/* Dutch */
	"Skickat från ", "Skickades från ", "Sendt fra ",
	"Lähetetty ", "Skickat med ", "Sendt med ", "Sent úr ",	/* Nordic */
	"Wysłane z ", "Wysłano z ", "Odesláno z ", "Odeslané z ",
	"Отправлено с ", "Отправлено из ", "Отправлено со ",
	"Отправлено через ", "Надіслано з ", "Відправлено з ",
	"Odoslané z ", "Poslano s ", "Poslano sa ", "Poslano iz ",
	"Послато са ", "Изпратено от ", "Изпратено с ",	/* Slavic */
	"Trimis de pe ", "Trimis cu ", "Trimis din ",		/* Romanian */
	"Küldve ", "Στάλθηκε από ", "Išsiųsta iš ", "Nosūtīts no ",
	"Saadetud ", "Enviat des de ", "Enviat des del ", "Enviat amb ",
	"Dikirim dari ", "Dihantar dari ", "Gửi từ ", "ส่งจาก ",
	"נשלח מ", "ارسال شده از ",
	"أرسلت من ", "أُرسلت من ", "تم الإرسال من ",
	"تم إرسالها من ",					/* Arabic */
	"发自我的", "从我的", "從我的",			/* Chinese */
};
static const char *const mailtext_mobile_ends[] = {
	"gesendet",			/* "Von meinem iPhone gesendet" */
	"gönderildi",				/* "iPhone'umdan gönderildi" */
	"から送信",				/* "iPhoneから送信" */
	"에서 보냄",				/* Korean */
	"küldve",				/* "Az iPhone-omról küldve" */
	"से भेजा गया",			/* Hindi */
};

static int
mailtext_is_mobile_sig(struct line t)
{
	struct line e = t;
	size_t i;

	/* A comma makes it a sentence ("Sent from my desk, as usual"), but
	 * for the carriers' "Sent via the Samsung Galaxy S7, an AT&T 4G LTE
	 * smartphone". */
	if (mailtext_ends(e, "."))
		e.len--;
	if ((mailtext_has(t, ',') && !mailtext_ends_ci(e, " smartphone")) ||
	    mailtext_words(t) > 14 || t.len > 120)
		return 0;
	for (i = 0; i < nitems(mailtext_mobile_starts); i++)
		if (mailtext_starts(t, mailtext_mobile_starts[i]))
			return 1;
	for (i = 0; i < nitems(mailtext_mobile_ends); i++)
		if (mailtext_ends_ci(t, mailtext_mobile_ends[i]) &&
		    t.len > strlen(mailtext_mobile_ends[i]))
			return 1;
	return 0;
}

/* What a separator line says between its dashes: "-----Original
 * Message-----", "---------- Forwarded message ---------", "-------- Oprindelig
 * besked --------", "*-------- Original Message --------*" (bold), Zoho's
 * "============ Forwarded message ============". */
static const char *const mailtext_markers[] = {
	"Original Message", "Original message", "Forwarded message",
	"Reply message", "Original Email",			/* English */
	"Ursprüngliche Nachricht", "Original-Nachricht", "Originalnachricht",
	"Weitergeleitete Nachricht",				/* German */
	"Message d'origine", "Message original", "Message transféré",
	"Message d’origine",					/* French */
	"Mensaje original", "Mensaje reenviado",		/* Spanish */
	"Messaggio originale", "Messaggio inoltrato",		/* Italian */
	"Mensagem original", "Mensagem encaminhada",		/* Portuguese */
	"Oorspronkelijk bericht", "Origineel bericht",
	"Doorgestuurd bericht",					/* Dutch */
	"Ursprungligt meddelande", "Originalmeddelande",
	"Vidarebefordrat meddelande",				/* Swedish */
	"Oprindelig besked", "Oprindelig meddelelse", "Videresendt besked",
	"Videresendt meddelelse",				/* Danish */
	"Opprinnelig melding", "Videresendt melding",		/* Norwegian */
	"Alkuperäinen viesti", "Välitetty viesti",		/* Finnish */
	"Wiadomość oryginalna", "Oryginalna wiadomość",
	"Przekazana wiadomość", "Wiadomość przekazana dalej",	/* Polish */
	"Původní zpráva", "Přeposlaná zpráva",			/* Czech */
	"Orijinal ileti", "Orijinal mesaj", "İletilen ileti",	/* Turkish */
	"Исходное сообщение", "Пересылаемое сообщение",
	"Пересланное сообщение", "Оригинальное сообщение",	/* Russian */
	"Оригінальне повідомлення", "Вихідне повідомлення",
	"Переслане повідомлення",				/* Ukrainian */
	"الرسالة الأصلية", "رسالة معاد توجيهها",		/* Arabic */
	"原始邮件", "原始郵件", "转发邮件", "轉寄郵件",		/* Chinese */
	"元のメッセージ", "転送メッセージ",			/* Japanese */
	"Eredeti üzenet", "Továbbított üzenet",			/* Hungarian */
	"Mesaj original", "Mesaj redirecționat",		/* Romanian */
	"Izvorna poruka", "Proslijeđena poruka", "Izvirno sporočilo",
	"Posredovano sporočilo", "Pôvodná správa", "Preposlaná správa",
	"Оригинално съобщение", "Препратено съобщение",
	"Оригинална порука", "Прослеђена порука",	/* South Slavic, Slovak */
	"Αρχικό μήνυμα", "Προωθημένο μήνυμα",			/* Greek */
	"הודעה מקורית", "הודעה שהועברה",			/* Hebrew */
	"Missatge original", "Missatge reenviat",		/* Catalan */
	"Originalus laiškas", "Persiųstas laiškas", "Algne kiri",
	"Sākotnējā ziņa", "Pārsūtīta ziņa",			/* Baltic */
	"Thư gốc", "Pesan Asli", "Pesan yang diteruskan",
	"원본 메시지", "전달된 메시지", "پیام اصلی",
};
/* Apple Mail's forward line, in its languages. */
static const char *const mailtext_forward_lines[] = {
	"Begin forwarded message", "Anfang der weitergeleiteten Nachricht",
	"Début du message réexpédié", "Inizio messaggio inoltrato",
	"Begin doorgestuurd bericht", "Comienzo del mensaje reenviado",
	"Início da mensagem reencaminhada", "Começo da mensagem encaminhada",
	"Vidarebefordrat brev", "Videresendt brev", "Välitetty viesti alkaa",
	"Początek przekazywanej wiadomości", "Začátek přeposílané zprávy",
	"Начало переадресованного сообщения",
	"Початок пересланого повідомлення", "İletilen ileti başlangıcı",
	"転送されたメッセージ", "以下是转发的邮件",
};

static int mailtext_attribution_text(struct line, int);

static int
mailtext_is_marker_char(char c)
{
	return c == '-' || c == '=' || c == '*' || c == '_' || c == ' ';
}

static int
mailtext_is_original_marker(struct line t)
{
	struct line m = t, core, r;
	size_t i, n;

	if (mailtext_colon(t, &core))
		for (i = 0; i < nitems(mailtext_forward_lines); i++) {
			n = strlen(mailtext_forward_lines[i]);
			if (core.len == n && util_strncaseeq(core.s,
			    mailtext_forward_lines[i], n))
				return 1;
		}
	if (t.len < 4 || !mailtext_is_marker_char(t.s[0]) ||
	    !(mailtext_starts(t, "--") || mailtext_starts(t, "==") ||
	    mailtext_starts(t, "*-")))
		return 0;
	/* Dashes, stars and spaces, no-break ones too, off both ends. */
	for (n = 0; n != m.len;) {
		n = m.len;
		m = mailtext_trim(m);
		while (m.len > 0 && mailtext_is_marker_char(m.s[0])) {
			m.s++;
			m.len--;
		}
		while (m.len > 0 && mailtext_is_marker_char(m.s[m.len - 1]))
			m.len--;
	}
	if (mailtext_colon(m, &core))
		m = core;
	for (i = 0; i < nitems(mailtext_markers); i++)
		if (m.len == strlen(mailtext_markers[i]) &&
		    util_strncaseeq(m.s, mailtext_markers[i], m.len))
			return 1;
	/* Run on with the header block: "-------- Ursprüngliche Nachricht
	 * --------Von: ...". */
	r = t;
	while (r.len > 0 && mailtext_is_marker_char(r.s[0])) {
		r.s++;
		r.len--;
	}
	for (i = 0; i < nitems(mailtext_markers); i++) {
		n = strlen(mailtext_markers[i]);
		if (r.len < n + 2 || !util_strncaseeq(r.s, mailtext_markers[i],
		    n))
			continue;
		if (r.s[n] == ' ')
			n++;
		if (r.s[n] != ' ' && mailtext_is_marker_char(r.s[n]))
			return 1;
	}
	/* Zoho: "---- On Mon, 02 Mar 2026 10:00:00 +0100 Referee
	 * <referee@…> wrote ----". */
	return mailtext_attribution_text(m, 1);
}

/* The header fields of an Outlook-style block ("From: …", "*Sent:* …", "De :
 * …", "Von: …"), by what they say. */
enum { FIELD_NONE, FIELD_FROM, FIELD_DATE, FIELD_OTHER };

static const struct {
	const char	*name;
	int		 kind;
} mailtext_fields[] = {
	/* English, French, German, Dutch, Italian, Spanish/Portuguese */
	{ "From", FIELD_FROM }, { "Sent", FIELD_DATE }, { "Date", FIELD_DATE },
	{ "To", FIELD_OTHER }, { "Cc", FIELD_OTHER },
	{ "Subject", FIELD_OTHER },
	{ "De", FIELD_FROM }, { "Envoyé", FIELD_DATE }, { "À", FIELD_OTHER },
	{ "Objet", FIELD_OTHER },
	{ "Von", FIELD_FROM }, { "Gesendet", FIELD_DATE },
	{ "Datum", FIELD_DATE }, { "An", FIELD_OTHER },
	{ "Betreff", FIELD_OTHER },
	{ "Van", FIELD_FROM }, { "Verzonden", FIELD_DATE },
	{ "Aan", FIELD_OTHER }, { "Onderwerp", FIELD_OTHER },
	{ "Da", FIELD_FROM }, { "Inviato", FIELD_DATE }, { "Data", FIELD_DATE },
	{ "A", FIELD_OTHER }, { "Oggetto", FIELD_OTHER },
	{ "Enviado el", FIELD_DATE }, { "Enviada em", FIELD_DATE },
	{ "Enviado", FIELD_DATE }, { "Enviada", FIELD_DATE },
	{ "Fecha", FIELD_DATE }, { "Para", FIELD_OTHER },
	{ "Asunto", FIELD_OTHER }, { "Assunto", FIELD_OTHER },
	/* Swedish, Danish/Norwegian, Finnish */
	{ "Från", FIELD_FROM }, { "Skickat", FIELD_DATE },
	{ "Till", FIELD_OTHER }, { "Ämne", FIELD_OTHER },
	{ "Kopia", FIELD_OTHER },
	{ "Fra", FIELD_FROM }, { "Sendt", FIELD_DATE }, { "Dato", FIELD_DATE },
	{ "Til", FIELD_OTHER }, { "Emne", FIELD_OTHER },
	{ "Lähettäjä", FIELD_FROM }, { "Lähetetty", FIELD_DATE },
	{ "Päivämäärä", FIELD_DATE }, { "Vastaanottaja", FIELD_OTHER },
	{ "Aihe", FIELD_OTHER },
	/* Polish, Czech, Russian, Ukrainian */
	{ "Od", FIELD_FROM }, { "Wysłano", FIELD_DATE },
	{ "Wysłane", FIELD_DATE }, { "Do", FIELD_OTHER },
	{ "Temat", FIELD_OTHER }, { "Odesláno", FIELD_DATE },
	{ "Komu", FIELD_OTHER }, { "Předmět", FIELD_OTHER },
	{ "От", FIELD_FROM }, { "Отправлено", FIELD_DATE },
	{ "Дата", FIELD_DATE }, { "Кому", FIELD_OTHER },
	{ "Копия", FIELD_OTHER }, { "Тема", FIELD_OTHER },
	{ "Від", FIELD_FROM }, { "Надіслано", FIELD_DATE },
	{ "Копія", FIELD_OTHER },
	/* Turkish, Hungarian */
	{ "Kimden", FIELD_FROM }, { "Gönderildi", FIELD_DATE },
	{ "Tarih", FIELD_DATE }, { "Kime", FIELD_OTHER },
	{ "Konu", FIELD_OTHER },
	{ "Feladó", FIELD_FROM }, { "Elküldve", FIELD_DATE },
	{ "Címzett", FIELD_OTHER }, { "Tárgy", FIELD_OTHER },
	/* Arabic, Chinese, Japanese, Korean */
	{ "من", FIELD_FROM }, { "تاريخ الإرسال", FIELD_DATE },
	{ "إلى", FIELD_OTHER }, { "الموضوع", FIELD_OTHER },
	{ "发件人", FIELD_FROM }, { "发送时间", FIELD_DATE }, { "收件人", FIELD_OTHER },
	{ "主题", FIELD_OTHER }, { "抄送", FIELD_OTHER },
	{ "寄件者", FIELD_FROM }, { "寄件日期", FIELD_DATE }, { "收件者", FIELD_OTHER },
	{ "主旨", FIELD_OTHER },
	{ "差出人", FIELD_FROM }, { "送信日時", FIELD_DATE }, { "宛先", FIELD_OTHER },
	{ "件名", FIELD_OTHER },
	{ "보낸 사람", FIELD_FROM }, { "보낸 날짜", FIELD_DATE },
	{ "받는 사람", FIELD_OTHER }, { "제목", FIELD_OTHER },
	/* Polish webmails, French webmails ("Message du : ..."), Catalan,
	 * Romanian, Greek, Hebrew, Croatian, Slovak */
	{ "Nadawca", FIELD_FROM }, { "Adresat", FIELD_OTHER },
	{ "Odbiorca", FIELD_OTHER }, { "DW", FIELD_OTHER },
	{ "Message du", FIELD_DATE }, { "Envoyé le", FIELD_DATE },
	{ "Enviat", FIELD_DATE }, { "Per a", FIELD_OTHER },
	{ "Assumpte", FIELD_OTHER },
	{ "De la", FIELD_FROM }, { "Trimis", FIELD_DATE },
	{ "Către", FIELD_OTHER }, { "Subiect", FIELD_OTHER },
	{ "Από", FIELD_FROM }, { "Στάλθηκε", FIELD_DATE },
	{ "Προς", FIELD_OTHER }, { "Θέμα", FIELD_OTHER },
	{ "מאת", FIELD_FROM }, { "נשלח", FIELD_DATE }, { "אל", FIELD_OTHER },
	{ "נושא", FIELD_OTHER },
	{ "Šalje", FIELD_FROM }, { "Poslano", FIELD_DATE },
	{ "Prima", FIELD_OTHER }, { "Predmet", FIELD_OTHER },
	{ "Odoslané", FIELD_DATE },
};

/* The kind of field a line is (bold stars removed): its name, optional
 * spaces ("De :") and a colon. */
static int
mailtext_outlook_field(struct line t)
{
	char tmp[128];
	size_t i, n = 0, k, w;
	struct line c, rest, head = t;

	/* Every name is short: no colon near the start, no field. */
	if (head.len > 48)
		head.len = 48;
	if (!mailtext_has(head, ':') && !mailtext_contains(head,
	    "\xef\xbc\x9a"))
		return FIELD_NONE;

	for (i = 0; i < t.len && n < sizeof(tmp) - 1; i++)
		if (t.s[i] != '*')
			tmp[n++] = t.s[i];
	tmp[n] = '\0';
	c.s = tmp;
	c.len = n;
	/* "** De : **": the stars gone, the spaces inside them too. */
	c = mailtext_trim(c);
	for (i = 0; i < nitems(mailtext_fields); i++) {
		k = strlen(mailtext_fields[i].name);
		if (!mailtext_starts_ci(c, mailtext_fields[i].name))
			continue;
		rest.s = c.s + k;
		rest.len = c.len - k;
		while (rest.len > 0 &&
		    mailtext_space_at(rest.s, rest.len, &w)) {
			rest.s += w;
			rest.len -= w;
		}
		if (mailtext_starts(rest, ":") ||
		    mailtext_starts(rest, "\xef\xbc\x9a"))
			return mailtext_fields[i].kind;
	}
	return FIELD_NONE;
}

/* How many header fields a line holds run on ("Temat: ... Nadawca: ...
 * Adresat: ... Data: ...", as Polish webmails quote a mail), each a field
 * name at the start or after a space, then a colon; *fromdate set when one
 * is a From or a date.  Long lines are not looked into. */
static int
mailtext_fields_run_on(struct line t, int *fromdate)
{
	struct line at;
	size_t i;
	int n = 0, kind, tried = 0;

	*fromdate = 0;
	if (t.len > 1000)
		return 0;
	for (i = 0; i < t.len && n < 3; i++)
		n += t.s[i] == ':' || (unsigned char)t.s[i] == 0x9a;
	if (n < 3)
		return 0;
	n = 0;
	for (i = 0; i < t.len && tried < 40; i++) {
		if (i > 0 && t.s[i - 1] != ' ')
			continue;
		at.s = t.s + i;
		/* The field name and its colon, not the text after it. */
		at.len = t.len - i < 30 ? t.len - i : 30;
		if (!mailtext_has(at, ':') && !mailtext_contains(at,
		    "\xef\xbc\x9a"))
			continue;
		tried++;
		if ((kind = mailtext_outlook_field(at)) == FIELD_NONE)
			continue;
		n++;
		if (kind != FIELD_OTHER)
			*fromdate = 1;
	}
	return n;
}

/* A header block at line i, the header of a quoted or forwarded mail:
 * lines that are each a header field (blank lines between them allowed),
 * at least two, one of them a From or a date, within four lines of the
 * first (so "From: ..., Sent: ..." and "To: ..., From: ..." both); or one
 * line holding three fields or more run on, a From or a date among them.
 * Returns the block's last line, -1 when none.  *possible is set, and i
 * returned, for a From field alone with an address ("From: Alice
 * <alice@example.org>") or a date field alone with a time ("Sent: Monday
 * 10:00"): it may open such a block. */
static int
mailtext_header_block(const struct line *lines, int n, int i, int *possible)
{
	int j, seen = 0, fromdate, kind, last = i, sure = 0;
	struct line first = mailtext_trim(lines[i]);

	*possible = 0;
	if (mailtext_fields_run_on(first, &fromdate) >= 3 && fromdate)
		return i;
	if ((kind = mailtext_outlook_field(first)) == FIELD_NONE)
		return -1;
	/* A From or a date with another field among the next three lines
	 * (a long name may wrap between them); a To or a Subject with a From
	 * or a date among the fields right below it. */
	fromdate = kind != FIELD_OTHER;
	for (j = i + 1; j < n && seen < 3 && !sure; j++) {
		struct line t = mailtext_trim(lines[j]);
		int k;

		if (t.len == 0)
			continue;
		seen++;
		if ((k = mailtext_outlook_field(t)) == FIELD_NONE) {
			if (kind == FIELD_OTHER)
				break;
			continue;
		}
		last = j;
		sure = fromdate || k != FIELD_OTHER;
	}
	if (sure) {
		/* The rest of the block, as long as it goes on. */
		for (j = last + 1; j < n; j++) {
			struct line t = mailtext_trim(lines[j]);

			if (t.len == 0)
				continue;
			if (mailtext_outlook_field(t) == FIELD_NONE)
				break;
			last = j;
		}
		return last;
	}
	if ((kind == FIELD_FROM && (mailtext_has(first, '@') ||
	    mailtext_has(first, '<'))) || (kind == FIELD_DATE &&
	    mailtext_has_time(first))) {
		*possible = 1;
		return i;
	}
	return -1;
}

/* The verbs that end an attribution line, before its colon: "On …, Name
 * <addr> wrote:", "W dniu … napisał(a):", "… a écrit :", "…写道：". */
static const char *const mailtext_attr_ends[] = {
	"wrote", "writes",					/* English */
	"написал(а)", "написал", "написала", "пишет",		/* Russian */
	"написав(ла)", "написав", "пише",			/* Ukrainian */
	"napisał(a)", "napisał", "napisała", "pisze",		/* Polish */
	"napsal(a)", "napsal", "napsala",			/* Czech */
	"ha scritto", "scrisse",				/* Italian */
	"escreveu",						/* Portuguese */
	"escribió",						/* Spanish */
	"kirjoitti",						/* Finnish */
	"schreef", "het volgende geschreven",			/* Dutch */
	"skrev",				/* Swedish, Danish, Norwegian */
	"schrieb",						/* German */
	"a écrit",						/* French */
	"yazdı",						/* Turkish */
	"كتب",							/* Arabic */
	"写道", "寫道",						/* Chinese */
	"のメッセージ", "書きました",				/* Japanese */
	"작성",							/* Korean */
	/* Hungarian, Greek, Hebrew, Romanian */
	"írta", "έγραψε", "כתב", "a scris",
	"menulis", "đã viết",			/* Indonesian, Vietnamese */
	"va escriure", "escribiu", "idatzi zuen",	/* Catalan, Galician, Basque */
	"je napisao", "je napisala", "je napisao/la", "je napisal",
	"je napisal(a)", "napísal(a)", "napísal", "napísala",
	"написа", "је написао", "је написала",	/* South Slavic, Slovak */
	"rašė", "rakstīja", "kirjutas", "skrifaði",	/* Baltic, Icelandic */
	"כתב/ה", "כתב(ה)", "כתבה", "نوشت",	/* Hebrew, Persian */
	"ने लिखा", "เขียนว่า", "het geskryf", "shkroi",
};

/* Verbs that come before the writer's name, the line still ending in a
 * colon: "Am 2. März 2026 um 10:00 schrieb Name <addr>:", "Name <addr>
 * schrieb am Fr., 28. Feb. 2026, 10:00:", "Op … schreef Name <addr>:",
 * "Den … skrev Name <addr>:", "… كتب Name <addr>:". */
static const char *const mailtext_attr_verbs[] = {
	" schrieb ", " schreef ", " skrev ", "كتب ", " kirjoitti ",
	" napsal(a) ", " napsal ", " ezt írta ",
	"napisana przez ",	/* Apple Mail: "Wiadomość napisana przez ..." */
	" a scris ", " escreveu ",	/* Romanian, Portuguese Gmail */
};

/* Openings of attribution lines that clients wrap onto the next line. */
static const char *const mailtext_attr_starts[] = {
	"On ", "Am ", "Le ", "W dniu ", "Il giorno ", "Il ", "Em ", "El ",
	"Op ", "Den ", "Dne ", "Στις ", "في ", "在 ",
	"Wiadomość napisana przez ", "No dia ", "Pe ", "Dana ", "ב-",
	"در ", "Vào ", "Pada ",
};

/* Does this (joined) text read as an attribution with a verb?  bare: the
 * colon may be missing (inside Zoho's "---- On … wrote ----"). */
static int
mailtext_attribution_text(struct line t, int bare)
{
	struct line core;
	size_t i;

	if (t.len > 400)
		return 0;
	if (!mailtext_colon(t, &core)) {
		/* "On Mon, 2 Mar 2026 at 10:00, Name <addr> wrote", "Am
		 * 20.06.24 um 16:20 schrieb Name": an opening and a date
		 * make it one without the colon. */
		if (!bare) {
			if (!mailtext_has_digit(t))
				return 0;
			for (i = 0; i < nitems(mailtext_attr_starts); i++)
				if (mailtext_starts(t, mailtext_attr_starts[i]))
					break;
			if (i == nitems(mailtext_attr_starts))
				return 0;
		} else if (!mailtext_has_digit(t))
			return 0;
		for (i = 0; i < nitems(mailtext_attr_ends); i++)
			if (mailtext_ends_ci(core, mailtext_attr_ends[i]) &&
			    core.len > strlen(mailtext_attr_ends[i]) &&
			    strchr(" >", core.s[core.len -
			    strlen(mailtext_attr_ends[i]) - 1]) != NULL)
				return 1;
		if (bare)
			return 0;
		for (i = 0; i < nitems(mailtext_attr_verbs); i++)
			if (mailtext_contains(core, mailtext_attr_verbs[i]))
				return 1;
		return 0;
	}
	for (i = 0; i < nitems(mailtext_attr_ends); i++)
		if (mailtext_ends_ci(core, mailtext_attr_ends[i]))
			return 1;
	if (!mailtext_has_digit(core) && !mailtext_has(core, '@'))
		return 0;
	for (i = 0; i < nitems(mailtext_attr_verbs); i++)
		if (mailtext_contains(core, mailtext_attr_verbs[i]))
			return 1;
	return 0;
}

/* An attribution without a verb: a date or time, a name and an address in
 * angle brackets, then the colon ("30.09.2017, 18.30, "John - Doe"
 * <john@example.org>:", Gmail's "ср, 30 апр. 2025 г. в 15:19, John Doe
 * <john@example.org>:", Japanese Gmail's "2026年3月2日(月) 10:00 Name
 * <addr>:"). */
static int
mailtext_attribution_verbless(struct line t)
{
	struct line core, before;
	size_t lt;

	if (t.len > 400 || !mailtext_colon(t, &core) ||
	    !mailtext_ends(core, ">"))
		return 0;
	for (lt = core.len; lt > 0 && core.s[lt - 1] != '<'; lt--)
		;
	if (lt == 0 || memchr(core.s + lt, '@', core.len - lt) == NULL)
		return 0;
	before.s = core.s;
	before.len = lt - 1;
	return mailtext_has_time(before);
}

/* Gmail's older form, a date first and no verb, the colon and the address
 * often missing: "2016-03-03 17:21 GMT+01:00 Name", "2013/7/20 Name via
 * List <list@example.org>", "03.03.2016 17:21 GMT+01:00 Name <addr>:".  It
 * is an attribution only when quoted lines follow (else a possible one). */
static int
mailtext_attribution_date_first(struct line t)
{
	size_t i = 0, g, groups = 0;
	struct line rest;

	if (t.len > 300)
		return 0;
	for (;;) {
		for (g = 0; i < t.len && isdigit((unsigned char)t.s[i]); i++)
			g++;
		if (g == 0 || g > 4)
			return 0;
		groups++;
		if (groups == 3)
			break;
		if (i >= t.len || strchr("-/.", t.s[i]) == NULL)
			return 0;
		i++;
	}
	if (i < t.len && t.s[i] == '.')
		i++;
	if (i >= t.len || t.s[i] != ' ')
		return 0;
	rest.s = t.s + i;
	rest.len = t.len - i;
	if ((mailtext_ends(rest, ">") || mailtext_ends(rest, ">:")) &&
	    mailtext_has(rest, '@'))
		return 1;
	return mailtext_has_time(rest) && (mailtext_contains(rest, " GMT") ||
	    mailtext_contains(rest, " UTC"));
}

/* Does the text so far have a '<' not yet closed (an address broken over
 * lines: "Name <referee@ludus.example" / "> wrote:")? */
static int
mailtext_open_angle(const char *s, size_t len)
{
	size_t i;
	int open = 0;

	/* Nested: "<alice@example.org <mailto:alice@example.org>" is open. */
	for (i = 0; i < len; i++)
		if (s[i] == '<')
			open++;
		else if (s[i] == '>' && open > 0)
			open--;
	return open > 0;
}

/* May an attribution that starts with this line go on over the next? */
static int
mailtext_may_wrap(struct line first)
{
	size_t i;

	for (i = 0; i < nitems(mailtext_attr_starts); i++)
		if (mailtext_starts(first, mailtext_attr_starts[i]))
			return 1;
	return mailtext_has(first, '@') || mailtext_has(first, '<') ||
	    mailtext_has_time(first);
}

/* Is an attribution at line i?  Returns how many lines it spans (1 to 4:
 * clients wrap long "On …, Name <address> wrote:" lines, Gmail at the '<',
 * at "<mailto:" or before the closing ">:" or "wrote:"), 0 when not.
 * *strong is set for a sure one: a writing verb with a date, an address or
 * a known opening ("On …", "Am …"), or the date-time-address form without a
 * verb.  The others ("Alice wrote:", any line ending in an address and a
 * colon as Yandex and Mail.ru write it, Gmail's date-first form without a
 * colon) are possible ones: sure only when quoted lines follow. */
static int
mailtext_attribution(const struct line *lines, int n, int i, int *strong)
{
	char joined[512];
	size_t jl = 0, s;
	int k;
	struct line first = mailtext_trim(lines[i]);

	*strong = 0;
	for (k = 0; k < 4 && i + k < n; k++) {
		struct line t = mailtext_trim(lines[i + k]), j;
		int open = mailtext_open_angle(joined, jl);

		if (t.len == 0 || (mailtext_is_quote(t) && !open) ||
		    jl + t.len + 1 >= sizeof(joined))
			break;
		if (k > 0) {
			if (!mailtext_may_wrap(first))
				break;
			/* A line that opens an attribution of its own is
			 * not the continuation of this one. */
			for (s = 0; s < nitems(mailtext_attr_starts); s++)
				if (mailtext_starts(t, mailtext_attr_starts[s]))
					break;
			if (s < nitems(mailtext_attr_starts))
				break;
			if (!open && joined[jl - 1] != '<')
				joined[jl++] = ' ';
		}
		memcpy(joined + jl, t.s, t.len);
		jl += t.len;
		j.s = joined;
		j.len = jl;
		if (mailtext_attribution_verbless(j)) {
			*strong = 1;
			return k + 1;
		}
		/* Without the colon, within one line only: "Am Montag
		 * schrieb Alice, dass …" and the line below are no
		 * attribution. */
		if (((k == 0 && !mailtext_ends(j, "<")) ||
		    mailtext_ends(j, ":") || mailtext_ends(j, "\xef\xbc\x9a")) &&
		    mailtext_attribution_text(j, 0)) {
			/* Without its colon it may be a sentence ("Am 3. März
			 * schrieb ich ihm"). */
			*strong = mailtext_ends(j, ":") || mailtext_ends(j,
			    "\xef\xbc\x9a");
			*strong &= mailtext_has_digit(j) || mailtext_has(j, '@');
			for (s = 0; s < nitems(mailtext_attr_starts) &&
			    mailtext_ends(j, ":"); s++)
				if (mailtext_starts(j, mailtext_attr_starts[s]))
					*strong = 1;
			return k + 1;
		}
		if (k == 0 && mailtext_ends(j, ":") && mailtext_has(j, '@'))
			return 1;
	}
	return mailtext_attribution_date_first(first);
}

static int mailtext_is_name(const char *);

/* A closing name line: "-Name", "--Name", "-- Name", "—Name", "–Name" (em
 * and en dash), "/Name"; a short line. */
static int
mailtext_is_dash_name(const char *s)
{
	static const char *const dashes[] = { "--", "\xe2\x80\x94",
		"\xe2\x80\x93", "-", "/" };
	struct line t;
	size_t i, n;

	t.s = s;
	t.len = strlen(s);
	if (mailtext_words(t) > 3)
		return 0;
	for (i = 0; i < nitems(dashes); i++) {
		n = strlen(dashes[i]);
		if (strncmp(s, dashes[i], n) != 0)
			continue;
		/* "-Name" as before; the other dashes and the slash with a
		 * name after them, a space allowed after a long one. */
		if (i == 3)
			return isalpha((unsigned char)s[1]);
		if (s[n] == ' ' && i < 3)
			n++;
		return (isalpha((unsigned char)s[n]) ||
		    (unsigned char)s[n] >= 0xc0) && mailtext_is_name(s + n);
	}
	return 0;
}

/* Closing words of a short sign-off block at the end ("Regards,", "Viele
 * Grüße"); "command" marks the ones that are also the `thanks` command's
 * keywords, which count only with a name below them. */
static const struct {
	const char	*phrase;
	int		 command;
} mailtext_signoffs[] = {
	{ "Regards", 0 }, { "Best regards", 0 }, { "Kind regards", 0 },
	{ "Warm regards", 0 }, { "Best wishes", 0 }, { "Best", 0 },
	{ "Cheers", 0 }, { "Sincerely", 0 }, { "Yours", 0 },
	{ "All the best", 0 }, { "Take care", 0 }, { "Greetings", 0 },
	{ "Thanks", 1 }, { "Thank you", 1 }, { "Many thanks", 0 },
	{ "Thx", 1 },						/* English */
	{ "Grüße", 0 }, { "Viele Grüße", 0 }, { "Liebe Grüße", 0 },
	{ "Beste Grüße", 0 }, { "Mit freundlichen Grüßen", 0 },
	{ "Freundliche Grüße", 0 }, { "Viele Grüsse", 0 }, { "Gruß", 0 },
	{ "MfG", 0 }, { "LG", 0 }, { "VG", 0 }, { "Danke", 0 },	/* German */
	{ "Cordialement", 0 }, { "Bien cordialement", 0 },
	{ "Bien à vous", 0 }, { "Amicalement", 0 }, { "Merci", 0 },
	{ "Bises", 0 }, { "Salutations", 0 },			/* French */
	{ "Saludos", 0 }, { "Un saludo", 0 }, { "Atentamente", 0 },
	{ "Gracias", 0 }, { "Un abrazo", 0 }, { "Abrazos", 0 },	/* Spanish */
	{ "Saluti", 0 }, { "Cordiali saluti", 0 }, { "Distinti saluti", 0 },
	{ "Un saluto", 0 }, { "Grazie", 0 }, { "Ciao", 0 },	/* Italian */
	{ "Abraços", 0 }, { "Um abraço", 0 }, { "Atenciosamente", 0 },
	{ "Cumprimentos", 0 }, { "Obrigado", 0 }, { "Obrigada", 0 },
	{ "Groeten", 0 }, { "Groetjes", 0 }, { "Met vriendelijke groet", 0 },
	{ "Vriendelijke groeten", 0 }, { "Mvg", 0 }, { "Bedankt", 0 },
	{ "Hälsningar", 0 }, { "Med vänliga hälsningar", 0 },
	{ "Vänliga hälsningar", 0 }, { "Mvh", 0 }, { "Tack", 0 },
	{ "Hilsen", 0 }, { "Venlig hilsen", 0 }, { "Med venlig hilsen", 0 },
	{ "Vennlig hilsen", 0 }, { "Med vennlig hilsen", 0 }, { "Tak", 0 },
	{ "Takk", 0 }, { "Kh", 0 }, { "Vh", 0 }, { "Kærlig hilsen", 0 },
	{ "Mange hilsner", 0 }, { "Hilsner", 0 }, { "Knus", 0 }, { "Kram", 0 },
	{ "Terveisin", 0 }, { "Ystävällisin terveisin", 0 }, { "Kiitos", 0 },
	{ "Pozdrawiam", 0 }, { "Pozdrowienia", 0 }, { "Z poważaniem", 0 },
	{ "Dzięki", 0 }, { "Dziękuję", 0 },			/* Polish */
	{ "S pozdravem", 0 }, { "Zdravím", 0 }, { "Díky", 0 },
	{ "Děkuji", 0 },					/* Czech */
	{ "С уважением", 0 }, { "Спасибо", 1 }, { "Благодарю", 1 },
	{ "Всего доброго", 0 }, { "Всего хорошего", 0 }, { "Удачи", 0 },
	{ "З повагою", 0 }, { "Дякую", 0 },			/* Ukrainian */
	{ "Saygılarımla", 0 }, { "Teşekkürler", 0 }, { "Sevgiler", 0 },
	{ "مع التحية", 0 }, { "مع تحياتي", 0 }, { "شكرا", 0 },
	{ "谢谢", 0 }, { "此致", 0 }, { "祝好", 0 },
	{ "よろしくお願いします", 0 }, { "よろしくお願いいたします", 0 },
	{ "Herzliche Grüße", 0 }, { "Schöne Grüße", 0 }, { "Grüsse", 0 },
	{ "Gruss", 0 }, { "Mit besten Grüßen", 0 },		/* German */
	{ "Saludos cordiales", 0 }, { "Un cordial saludo", 0 },
	{ "Met vriendelijke groeten", 0 }, { "Hartelijke groet", 0 },
	{ "Üdv", 0 }, { "Üdvözlettel", 0 }, { "Köszönöm", 0 },	/* Hungarian */
	{ "Cu stimă", 0 }, { "Cu drag", 0 }, { "Mulțumesc", 0 },	/* Romanian */
	{ "Salutacions", 0 }, { "Atentament", 0 }, { "Gràcies", 0 },
	{ "Pozdrav", 0 }, { "Lp", 0 }, { "Lep pozdrav", 0 },
	{ "Hvala", 0 }, { "S pozdravom", 0 },		/* South Slavic, Slovak */
	{ "Με εκτίμηση", 0 }, { "Ευχαριστώ", 0 },		/* Greek */
	{ "בברכה", 0 }, { "תודה", 0 },				/* Hebrew */
};

/* A sign-off line; *punct is set when it ends in ',', '.' or '!'. */
static int
mailtext_is_signoff(const char *s, int *command, int *punct)
{
	struct line t;
	size_t i, n;

	t.s = s;
	t.len = strlen(s);
	*punct = 0;
	while (t.len > 0 && (t.s[t.len - 1] == ',' || t.s[t.len - 1] == '.' ||
	    t.s[t.len - 1] == '!')) {
		t.len--;
		*punct = 1;
	}
	t = mailtext_trim(t);
	for (i = 0; i < nitems(mailtext_signoffs); i++) {
		n = strlen(mailtext_signoffs[i].phrase);
		if (t.len == n && util_strncaseeq(t.s,
		    mailtext_signoffs[i].phrase, n)) {
			*command = mailtext_signoffs[i].command;
			return 1;
		}
	}
	return 0;
}

/* A name under a sign-off, or the title and company after it: up to four
 * words, no digits nor the signs of an address, a command or a move. */
static int
mailtext_is_name(const char *s)
{
	struct line t;
	size_t i;

	t.s = s;
	t.len = strlen(s);
	if (t.len == 0 || t.len > 40 || mailtext_words(t) > 4)
		return 0;
	for (i = 0; i < t.len; i++) {
		/* "Engineer @ Acme": an '@' between words is a title's. */
		if (s[i] == '@' && i > 0 && s[i - 1] == ' ' && s[i + 1] == ' ')
			continue;
		if (isdigit((unsigned char)s[i]) || strchr("#@:<>/=", s[i]))
			return 0;
	}
	return 1;
}

/* The other lines of a signature under a sign-off and a name: an address
 * or a web address alone, a telephone number ("+44 20 7946 0000"). */
static int
mailtext_is_sig_detail(const char *s)
{
	if (strchr(s, ' ') == NULL && (strchr(s, '@') != NULL ||
	    strncmp(s, "http", 4) == 0 || strncmp(s, "www.", 4) == 0))
		return 1;
	return s[0] == '+' && strlen(s) >= 8 &&
	    strspn(s, "+0123456789 -()./") == strlen(s);
}

/* "Cheers, Bob": a sign-off and a name on one line. */
static int
mailtext_is_signoff_name(const char *s)
{
	const char *comma = strchr(s, ',');
	char *head;
	int command, punct, r;

	if (comma == NULL || comma - s > 40 || !mailtext_is_name(comma + 1 +
	    strspn(comma + 1, " ")))
		return 0;
	head = xstrndup(s, (size_t)(comma - s));
	r = mailtext_is_signoff(head, &command, &punct) && !command;
	free(head);
	return r;
}

/* The reading of one body: its lines, what each is, the starts found. */
struct reading {
	const struct line *lines;
	int		 n;
	struct mail_line *out;	/* n of them */
	int		 cut;	/* the sure start of quoted material, or -1 */
	int		 hold;	/* a possible one, or -1 */
	int		 nread;
};

static void
mailtext_mark(struct reading *r, int from, int to, int why, int below)
{
	int i;

	for (i = from; i <= to && i < r->n; i++) {
		if (r->out[i].why == MAIL_LINE_READ)
			r->nread--;
		r->out[i].why = mailtext_trim(r->lines[i]).len == 0 ?
		    MAIL_LINE_BLANK : why;
		r->out[i].below = below;
	}
}

/* The next line read after i (READ, or -1), and whether a blank line
 * comes before it. */
static int
mailtext_next_read(const struct reading *r, int i, int *blank)
{
	*blank = 0;
	for (i++; i < r->n; i++) {
		if (r->out[i].why == MAIL_LINE_READ)
			return i;
		if (r->out[i].why == MAIL_LINE_BLANK)
			*blank = 1;
		else
			return -1;
	}
	return -1;
}

/* A sign-off in the middle: "Thanks,", one to three name lines, a blank
 * line, then more text (a title block, a disclaimer, a footer the client
 * added): from the sign-off on, it is the signature. */
static void
mailtext_mid_signoff(struct reading *r)
{
	int i, k, names, blank, command, punct, last;

	for (i = 0; i < r->n; i++) {
		if (r->out[i].why != MAIL_LINE_READ ||
		    !mailtext_is_signoff(r->out[i].text, &command, &punct) ||
		    (!punct && command))
			continue;
		names = 0;
		last = i;
		for (k = mailtext_next_read(r, i, &blank); k >= 0 && !blank &&
		    names < 3 && mailtext_is_name(r->out[k].text);
		    k = mailtext_next_read(r, k, &blank)) {
			names++;
			last = k;
		}
		if (names == 0 || k < 0 || !blank)
			continue;
		mailtext_mark(r, i, last, MAIL_LINE_SIGNOFF, -1);
		for (k = last + 1; k < r->n; k++)
			if (r->out[k].why == MAIL_LINE_READ ||
			    r->out[k].why == MAIL_LINE_HELD)
				mailtext_mark(r, k, k, MAIL_LINE_SIGNATURE, i);
		return;
	}
}

/* A sign-off block that ends what was read: "-Name"; "Cheers, Bob";
 * "Regards," (or "Viele Grüße", "С уважением", …) with up to three lines of
 * name, title and company below it, and after them the signature's address,
 * web address and telephone lines.  Whatever stands alone is kept: it may
 * be the one command. */
static void
mailtext_end_signoff(struct reading *r)
{
	int *rd, nr = 0, i, s, k, command, punct, names, cut = -1;

	rd = xreallocarray(NULL, (size_t)r->n + 1, sizeof(*rd));
	for (i = 0; i < r->n; i++)
		if (r->out[i].why == MAIL_LINE_READ)
			rd[nr++] = i;
	if (nr > 0 && mailtext_is_dash_name(r->out[rd[nr - 1]].text))
		mailtext_mark(r, rd[nr - 1], rd[nr - 1], MAIL_LINE_SIGNOFF,
		    -1), nr--;
	for (s = nr - 1; s >= 1 && s >= nr - 7; s--) {
		if (s == nr - 1 && mailtext_is_signoff_name(r->out[rd[s]].text)) {
			cut = s;
			break;
		}
		if (!mailtext_is_signoff(r->out[rd[s]].text, &command, &punct))
			continue;
		names = 0;
		for (k = s + 1; k < nr && names < 3 &&
		    mailtext_is_name(r->out[rd[k]].text); k++)
			names++;
		while (k < nr && names > 0 &&
		    mailtext_is_sig_detail(r->out[rd[k]].text))
			k++;
		if (k < nr || (names == 0 && (command || !punct)))
			break;
		cut = s;
		break;
	}
	for (k = cut; cut >= 0 && k < nr; k++)
		mailtext_mark(r, rd[k], rd[k], MAIL_LINE_SIGNOFF, rd[cut]);
	free(rd);
}

/* Lines below a sure start (why: what it was) are not the sender's. */
static void
mailtext_cut(struct reading *r, int i, int why)
{
	r->out[i].why = why;
	if (r->cut < 0)
		r->cut = i;
}

/* A line that may begin quoted material: it is set aside, and nothing
 * below it is read. */
static void
mailtext_possible(struct reading *r, int from, int to, int why)
{
	int i;

	for (i = from; i <= to; i++) {
		r->out[i].why = mailtext_trim(r->lines[i]).len == 0 ?
		    MAIL_LINE_BLANK : r->hold < 0 ? why : MAIL_LINE_HELD;
		r->out[i].possible = r->hold < 0;
		r->out[i].below = r->hold;
	}
	if (r->hold < 0)
		r->hold = from;
}

/* A line the client wrapped out of a quote: right below a long quoted line
 * and right above another quoted line, with no blank line between. */
static int
mailtext_wrapped_quote(const struct line *lines, int n, int i)
{
	struct line p, q;

	if (i == 0 || i + 1 >= n)
		return 0;
	p = mailtext_trim(lines[i - 1]);
	q = mailtext_trim(lines[i + 1]);
	return mailtext_is_quote(p) && p.len >= 60 && mailtext_is_quote(q);
}

static void
mailtext_classify(struct reading *r, int max_commands,
    int *commands_truncated)
{
	int li, k, strong, end, possible;

	for (li = 0; li < r->n; li++) {
		struct line t = mailtext_trim(r->lines[li]);
		struct mail_line *o = &r->out[li];

		o->below = r->cut >= 0 ? r->cut : -1;
		if (r->cut >= 0) {
			o->why = t.len == 0 ? MAIL_LINE_BLANK :
			    MAIL_LINE_ORIGINAL;
			continue;
		}
		if (t.len == 0) {
			o->why = MAIL_LINE_BLANK;
			continue;
		}
		if (mailtext_is_quote(t) ||
		    mailtext_wrapped_quote(r->lines, r->n, li)) {
			o->why = MAIL_LINE_QUOTE;
			continue;
		}
		if (mailtext_is_sigsep(t) || mailtext_is_dotted_rule(t)) {
			mailtext_cut(r, li, MAIL_LINE_SIGNATURE);
			continue;
		}
		if (mailtext_is_rule(t) || mailtext_is_original_marker(t)) {
			mailtext_cut(r, li, MAIL_LINE_SEPARATOR);
			continue;
		}
		if (mailtext_is_mobile_sig(t)) {
			/* Above the reply, as some phones put it, it is
			 * only itself. */
			if (r->nread > 0 || r->hold >= 0)
				mailtext_cut(r, li, MAIL_LINE_DEVICE);
			else
				o->why = MAIL_LINE_DEVICE;
			continue;
		}
		if ((end = mailtext_header_block(r->lines, r->n, li,
		    &possible)) >= 0) {
			if (possible || (r->nread == 0 && r->hold < 0))
				/* At the top, what is below may be a reply;
				 * it may as well be the mail forwarded. */
				mailtext_possible(r, li, end,
				    MAIL_LINE_HEADERS);
			else {
				mailtext_mark(r, li, end, MAIL_LINE_HEADERS,
				    -1);
				mailtext_cut(r, li, MAIL_LINE_HEADERS);
			}
			li = end;
			continue;
		}
		if (mailtext_is_separator_like(t)) {
			mailtext_possible(r, li, li, MAIL_LINE_SEPARATOR);
			continue;
		}
		if ((k = mailtext_attribution(r->lines, r->n, li,
		    &strong)) > 0) {
			int j = li + k;

			while (j < r->n && mailtext_trim(r->lines[j]).len == 0)
				j++;
			/* Bottom-posting and inline replies: only the
			 * attribution goes; the quote rule drops the rest and
			 * what follows is the sender's.  Mobile clients put
			 * the attribution first and the reply below it. */
			if ((j < r->n && mailtext_is_quote(mailtext_trim(
			    r->lines[j]))) || (strong && r->nread == 0 &&
			    r->hold < 0)) {
				mailtext_mark(r, li, li + k - 1,
				    MAIL_LINE_ATTRIBUTION, -1);
			} else if (strong) {
				mailtext_mark(r, li, li + k - 1,
				    MAIL_LINE_ATTRIBUTION, -1);
				mailtext_cut(r, li, MAIL_LINE_ATTRIBUTION);
			} else
				mailtext_possible(r, li, li + k - 1,
				    MAIL_LINE_ATTRIBUTION);
			li += k - 1;
			continue;
		}
		if (r->hold >= 0) {
			o->why = MAIL_LINE_HELD;
			o->below = r->hold;
			continue;
		}
		if (max_commands > 0 && r->nread >= max_commands) {
			*commands_truncated = 1;
			for (; li < r->n; li++) {
				r->out[li].why = MAIL_LINE_LIMIT;
				r->out[li].below = -1;
			}
			break;
		}
		o->why = MAIL_LINE_READ;
		r->nread++;
	}
}

static const char *const mailtext_why_names[] = {
	[MAIL_LINE_READ] = "read",
	[MAIL_LINE_BLANK] = "blank",
	[MAIL_LINE_QUOTE] = "quote",
	[MAIL_LINE_ATTRIBUTION] = "attribution",
	[MAIL_LINE_HEADERS] = "header block",
	[MAIL_LINE_SEPARATOR] = "separator",
	[MAIL_LINE_SIGNATURE] = "signature",
	[MAIL_LINE_DEVICE] = "device line",
	[MAIL_LINE_SIGNOFF] = "sign-off",
	[MAIL_LINE_ORIGINAL] = "after the reply",
	[MAIL_LINE_HELD] = "not read",
	[MAIL_LINE_LIMIT] = "over the limit",
};

const char *
mailtext_why_name(int why)
{
	if (why < 0 || (size_t)why >= nitems(mailtext_why_names))
		return "?";
	return mailtext_why_names[why];
}

void
mailtext_read(const char *text, size_t len, int max_lines, int max_commands,
    struct mail_msg *m)
{
	struct reading r;
	struct line *lines = NULL;
	size_t i, start;
	int n = 0, cap = 0, li;

	m->lines_truncated = 0;
	m->commands_truncated = 0;
	/* Split on LF, CRLF or a lone CR. */
	for (i = 0, start = 0; i <= len; i++) {
		if (i < len && text[i] != '\n' && text[i] != '\r')
			continue;
		if (i == len && i == start)
			break;	/* nothing after the last line end */
		if (max_lines > 0 && n >= max_lines) {
			m->lines_truncated = 1;
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			lines = xreallocarray(lines, (size_t)cap, sizeof(*lines));
		}
		lines[n].s = text + start;
		lines[n].len = i - start;
		n++;
		if (i < len && text[i] == '\r' && i + 1 < len &&
		    text[i + 1] == '\n')
			i++;
		start = i + 1;
	}
	memset(&r, 0, sizeof(r));
	r.lines = lines;
	r.n = n;
	r.cut = r.hold = -1;
	r.out = xcalloc((size_t)n + 1, sizeof(*r.out));
	for (li = 0; li < n; li++) {
		struct line t = mailtext_trim(lines[li]);

		r.out[li].text = xstrndup(t.s, t.len);
		r.out[li].below = -1;
	}
	mailtext_classify(&r, max_commands, &m->commands_truncated);
	mailtext_mid_signoff(&r);
	mailtext_end_signoff(&r);
	for (li = 0; li < n; li++) {
		if (r.out[li].why == MAIL_LINE_READ)
			strv_add(&m->commands, r.out[li].text);
		else if (r.out[li].why == MAIL_LINE_HELD)
			strv_add(&m->unread, r.out[li].text);
	}
	if (m->unread.n > 0) {
		int why = r.out[r.hold].why;

		m->unread_below = xstrdup(r.out[r.hold].text);
		m->unread_why = why == MAIL_LINE_ATTRIBUTION ?
		    N_("it may be the line a mail client writes above a "
		    "quotation") : why == MAIL_LINE_HEADERS ?
		    N_("it may be the header of a quoted or forwarded mail") :
		    N_("it may be a separator above quoted or forwarded text");
	}
	m->lines = r.out;
	m->nlines = n;
	free(lines);
}

/* HTML to text. */

struct htmlout {
	struct buf	b;
	int		bol;		/* at the start of a line */
	int		space;		/* a space is pending */
	int		quote;		/* blockquote depth */
	int		pre;		/* inside <pre> */
	int		deep;		/* the deepest element reached */
};

/* libxml2 stops building the tree at 256 levels (HTML_PARSE_HUGE only
 * moves the wall): a tree this deep may have lost its text. */
#define HTML_DEPTH_CUT	250

static void
mailtext_html_newline(struct htmlout *h)
{
	buf_addc(&h->b, '\n');
	h->bol = 1;
	h->space = 0;
}

static void
mailtext_html_text(struct htmlout *h, const char *s)
{
	int i;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == 0xc2 && (unsigned char)s[1] == 0xa0) {
			s++;
			c = ' ';
		}
		if (h->pre && c == '\n') {
			mailtext_html_newline(h);
			continue;
		}
		if (!h->pre && (c == ' ' || c == '\t' || c == '\n' ||
		    c == '\r' || c == '\f')) {
			if (!h->bol)
				h->space = 1;
			continue;
		}
		if (h->bol) {
			for (i = 0; i < h->quote; i++)
				buf_adds(&h->b, "> ");
			h->bol = 0;
		} else if (h->space)
			buf_addc(&h->b, ' ');
		h->space = 0;
		buf_addc(&h->b, (char)c);
	}
}

static int
mailtext_html_is(const xmlNode *n, const char *const *names, size_t nn)
{
	size_t i;

	for (i = 0; i < nn; i++)
		if (util_strcaseeq((const char *)n->name, names[i]))
			return 1;
	return 0;
}

static void
mailtext_html_walk(struct htmlout *h, const xmlNode *n, int depth)
{
	static const char *const skip[] = { "script", "style", "head",
		"title", "template", "noscript" };
	static const char *const block[] = { "p", "div", "li", "tr", "h1",
		"h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "pre",
		"blockquote", "hr", "dd", "dt", "dl", "section", "article",
		"header", "footer", "center", "address", "body", "html" };

	/* libxml2 itself caps nesting at 256; this guards our recursion
	 * against a tree built some other way. */
	if (depth > h->deep)
		h->deep = depth;
	if (depth > 300)
		return;
	for (; n != NULL; n = n->next) {
		if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
			if (n->content)
				mailtext_html_text(h, (const char *)n->content);
			continue;
		}
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (mailtext_html_is(n, skip, nitems(skip)))
			continue;
		if (util_strcaseeq((const char *)n->name, "br")) {
			mailtext_html_newline(h);
			continue;
		}
		if (mailtext_html_is(n, block, nitems(block))) {
			int isq = util_strcaseeq((const char *)n->name,
			    "blockquote");
			int isp = util_strcaseeq((const char *)n->name, "pre");

			if (!h->bol)
				mailtext_html_newline(h);
			h->quote += isq;
			h->pre += isp;
			mailtext_html_walk(h, n->children, depth + 1);
			h->quote -= isq;
			h->pre -= isp;
			if (!h->bol)
				mailtext_html_newline(h);
			continue;
		}
		if (util_strcaseeq((const char *)n->name, "td") ||
		    util_strcaseeq((const char *)n->name, "th"))
			h->space = !h->bol;
		mailtext_html_walk(h, n->children, depth + 1);
	}
}

char *
mailtext_html(const char *html, size_t len)
{
	struct htmlout h = { { 0 }, 1, 0, 0, 0, 0 };
	htmlDocPtr doc;

	/* Without libxml2 the HTML reads as no text at all. */
	if (len > 0 && len <= (size_t)INT32_MAX && mailtext_xml_load() == 0) {
		doc = lx.read(html, (int)len, NULL, "UTF-8",
		    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
		    HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
		if (doc != NULL) {
			mailtext_html_walk(&h, lx.root(doc), 0);
			lx.free_doc(doc);
		}
	}
	if (h.deep >= HTML_DEPTH_CUT) {
		buf_free(&h.b);
		return NULL;
	}
	buf_adds(&h.b, "");
	return buf_steal(&h.b);
}

/* UTF-8 hygiene and charsets. */

/* Length of the valid UTF-8 sequence at s, 0 when invalid. */
static size_t
mailtext_utf8_seq(const unsigned char *s, size_t len)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 ||
	    cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int
mailtext_utf8_valid(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		if ((n = mailtext_utf8_seq((const unsigned char *)s + i,
		    len - i)) == 0)
			return 0;
		i += n;
	}
	return 1;
}

char *
mailtext_utf8(const char *s, size_t len)
{
	struct buf b = { 0 };
	size_t i = 0, n;

	while (i < len) {
		if (s[i] == '\0') {
			i++;
			continue;
		}
		n = mailtext_utf8_seq((const unsigned char *)s + i, len - i);
		if (n == 0) {
			buf_adds(&b, "\xef\xbf\xbd");
			i++;
		} else {
			buf_add(&b, s + i, n);
			i += n;
		}
	}
	buf_adds(&b, "");
	return buf_steal(&b);
}

/* UTF-16 (big-endian unless le, or as its byte order mark says) to
 * UTF-8, a lone surrogate read as U+FFFD: iconv stops at one, and a
 * converter that steps over a byte loses the alignment of every unit
 * after it.  Owned. */
static char *
mailtext_utf16(const unsigned char *s, size_t len, int le)
{
	struct buf b = { 0 };
	unsigned int u, v, cp;
	size_t i = 0;
	char *out;

	if (len >= 2 && ((s[0] == 0xfe && s[1] == 0xff) ||
	    (s[0] == 0xff && s[1] == 0xfe))) {
		le = s[0] == 0xff;
		i = 2;
	}
	for (; i + 1 < len; i += 2) {
		u = le ? s[i] | s[i + 1] << 8 : s[i] << 8 | s[i + 1];
		cp = u;
		if (u >= 0xd800 && u <= 0xdbff && i + 3 < len) {
			v = le ? s[i + 2] | s[i + 3] << 8 :
			    s[i + 2] << 8 | s[i + 3];
			if (v >= 0xdc00 && v <= 0xdfff) {
				cp = 0x10000 + ((u - 0xd800) << 10) +
				    (v - 0xdc00);
				i += 2;
			}
		}
		if (cp >= 0xd800 && cp <= 0xdfff)
			cp = 0xfffd;
		util_utf8_put(&b, cp);
	}
	if (i < len)		/* an odd byte at the end */
		util_utf8_put(&b, 0xfffd);
	out = mailtext_utf8(buf_str(&b), b.len);
	buf_free(&b);
	return out;
}

/* The name iconv knows a charset by, for those mail programs label with
 * a name of their own (Outlook's and old Mac mailers' x-mac-*). */
static const char *
mailtext_charset_alias(const char *charset)
{
	static const struct {
		const char *label, *name;
	} alias[] = {
		{ "x-mac-cyrillic", "MAC-CYRILLIC" },
		{ "x-mac-ukrainian", "MACUKRAINIAN" },
		{ "x-mac-roman", "MACINTOSH" },
		{ "x-mac-ce", "MAC-CENTRALEUROPE" },
	};
	size_t i;

	for (i = 0; i < nitems(alias); i++)
		if (util_strcaseeq(charset, alias[i].label))
			return alias[i].name;
	return charset;
}

char *
mailtext_to_utf8(const char *s, size_t len, const char *charset)
{
	char *res = NULL, *out;
	size_t rlen = 0;
	int r;

	if (charset == NULL || *charset == '\0' ||
	    util_strcaseeq(charset, "utf-8") || util_strcaseeq(charset, "utf8"))
		return mailtext_utf8(s, len);
	if ((util_strcaseeq(charset, "us-ascii") ||
	    util_strcaseeq(charset, "ascii")) && mailtext_utf8_valid(s, len))
		return mailtext_utf8(s, len);
	if (util_strcaseeq(charset, "utf-16") ||
	    util_strcaseeq(charset, "utf-16be") ||
	    util_strcaseeq(charset, "utf-16le"))
		return mailtext_utf16((const unsigned char *)s, len,
		    util_strcaseeq(charset, "utf-16le"));
	charset = mailtext_charset_alias(charset);
	/* charconv_buffer(tocode, fromcode, …): target first. */
	r = charconv_buffer("UTF-8", charset, s, len, &res, &rlen);
	if (r == MAIL_CHARCONV_NO_ERROR && res != NULL) {
		out = mailtext_utf8(res, rlen);
		charconv_buffer_free(res);
		return out;
	}
	if (res != NULL)
		charconv_buffer_free(res);
	if (mailtext_utf8_valid(s, len))
		return mailtext_utf8(s, len);
	res = NULL;
	if (charconv_buffer("UTF-8", "WINDOWS-1252", s, len, &res, &rlen) ==
	    MAIL_CHARCONV_NO_ERROR && res != NULL) {
		out = mailtext_utf8(res, rlen);
		charconv_buffer_free(res);
		return out;
	}
	if (res != NULL)
		charconv_buffer_free(res);
	return mailtext_utf8(s, len);
}
