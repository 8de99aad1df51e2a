/* mailtext: a decoded body to the sender's own lines (commands.md step 2),
 * HTML to text, charset conversion and UTF-8 hygiene. */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <string.h>

#include <libetpan/libetpan.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

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
	 * copies a move from one. */
	if (len >= 3 && ((u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0x8b ||
	    u[2] == 0x8e || u[2] == 0x8f || u[2] == 0xaf)) ||
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

static int
mailtext_is_quote(struct line t)
{
	return t.len > 0 && t.s[0] == '>';
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

/* A time or a date ("10:15", "18.30", "30.09"): two digit groups joined by
 * ':' or '.'. */
static int
mailtext_has_time(struct line l)
{
	size_t i;

	for (i = 1; i + 2 < l.len; i++)
		if ((l.s[i] == ':' || l.s[i] == '.') &&
		    isdigit((unsigned char)l.s[i - 1]) &&
		    isdigit((unsigned char)l.s[i + 1]) &&
		    isdigit((unsigned char)l.s[i + 2]))
			return 1;
	return 0;
}

static int
mailtext_has_digit(struct line l)
{
	size_t i;

	for (i = 0; i < l.len; i++)
		if (isdigit((unsigned char)l.s[i]))
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

/* A horizontal rule of ten or more '-': Outlook's reply separator. */
static int
mailtext_is_rule(struct line t)
{
	size_t i;

	if (t.len < 10 || t.s[0] != '-')
		return 0;
	for (i = 0; i < t.len; i++)
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
	"Verstuurd met ", "Outlook voor ",			/* Dutch */
	"Skickat från ", "Skickades från ", "Sendt fra ",
	"Lähetetty ",						/* Nordic */
	"Wysłane z ", "Wysłano z ", "Odesláno z ", "Odeslané z ",
	"Отправлено с ", "Отправлено из ", "Отправлено со ",
	"Отправлено через ", "Надіслано з ", "Відправлено з ",	/* Slavic */
	"أرسلت من ", "تم الإرسال من ",			/* Arabic */
	"发自我的", "从我的", "從我的",			/* Chinese */
};
static const char *const mailtext_mobile_ends[] = {
	"gesendet",			/* "Von meinem iPhone gesendet" */
	"gönderildi",				/* "iPhone'umdan gönderildi" */
	"から送信",				/* "iPhoneから送信" */
	"에서 보냄",				/* Korean */
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
	struct line m = t, core;
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
};

/* The kind of field a line is (bold stars removed): its name, optional
 * spaces ("De :") and a colon. */
static int
mailtext_outlook_field(struct line t)
{
	char tmp[128];
	size_t i, n = 0, k, w;
	struct line c, rest;

	for (i = 0; i < t.len && n < sizeof(tmp) - 1; i++)
		if (t.s[i] != '*')
			tmp[n++] = t.s[i];
	tmp[n] = '\0';
	c.s = tmp;
	c.len = n;
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

/* An Outlook-style header block: a From: (or Sent:, Date:) line with
 * another field among the next three non-blank lines. */
static int
mailtext_is_outlook_block(const struct line *lines, int n, int i)
{
	int j, seen = 0, kind = mailtext_outlook_field(mailtext_trim(lines[i]));

	if (kind != FIELD_FROM && kind != FIELD_DATE)
		return 0;
	for (j = i + 1; j < n && seen < 3; j++) {
		struct line t = mailtext_trim(lines[j]);

		if (t.len == 0)
			continue;
		seen++;
		if (mailtext_outlook_field(t) != FIELD_NONE)
			return 1;
	}
	return 0;
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
};

/* Verbs that come before the writer's name, the line still ending in a
 * colon: "Am 2. März 2026 um 10:00 schrieb Name <addr>:", "Name <addr>
 * schrieb am Fr., 28. Feb. 2026, 10:00:", "Op … schreef Name <addr>:",
 * "Den … skrev Name <addr>:", "… كتب Name <addr>:". */
static const char *const mailtext_attr_verbs[] = {
	" schrieb ", " schreef ", " skrev ", "كتب ", " kirjoitti ",
	" napsal(a) ", " napsal ", " ezt írta ",
};

/* Openings of attribution lines that clients wrap onto the next line. */
static const char *const mailtext_attr_starts[] = {
	"On ", "Am ", "Le ", "W dniu ", "Il giorno ", "Il ", "Em ", "El ",
	"Op ", "Den ", "Dne ", "Στις ", "في ", "在 ",
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
		/* "On Mon, 2 Mar 2026 at 10:00, Name <addr> wrote" */
		if (!bare)
			return mailtext_starts(t, "On ") &&
			    mailtext_has_digit(t) && t.len > 6 &&
			    mailtext_ends_ci(t, "wrote") &&
			    (t.s[t.len - 6] == ' ' || t.s[t.len - 6] == '>');
		if (!mailtext_has_digit(t))
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

/* Does the text so far have a '<' not yet closed (an address broken over
 * lines: "Name <referee@ludus.example" / "> wrote:")? */
static int
mailtext_open_angle(const char *s, size_t len)
{
	size_t i;
	int open = 0;

	for (i = 0; i < len; i++)
		if (s[i] == '<')
			open = 1;
		else if (s[i] == '>')
			open = 0;
	return open;
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

/* Is an attribution at line i?  Returns how many lines it spans (1 to 3:
 * clients wrap long "On …, Name <address> wrote:" lines, Gmail at the '<' or
 * before the closing ">:"), 0 when not.  *strong is set when it has a
 * writing verb ("wrote:") or the date-time-address form without one; the
 * loose form (any line ending in an address and a colon, as Yandex and
 * Mail.ru write it) counts only when quoted lines follow. */
static int
mailtext_attribution(const struct line *lines, int n, int i, int *strong)
{
	char joined[512];
	size_t jl = 0;
	int k;
	struct line first = mailtext_trim(lines[i]);

	*strong = 0;
	for (k = 0; k < 3 && i + k < n; k++) {
		struct line t = mailtext_trim(lines[i + k]), j;
		int open = mailtext_open_angle(joined, jl);

		if (t.len == 0 || (mailtext_is_quote(t) && !open) ||
		    jl + t.len + 1 >= sizeof(joined))
			break;
		if (k > 0) {
			size_t s;

			if (!mailtext_may_wrap(first))
				break;
			/* A line that opens an attribution of its own is
			 * not the continuation of this one. */
			for (s = 0; s < nitems(mailtext_attr_starts); s++)
				if (mailtext_starts(t, mailtext_attr_starts[s]))
					return 0;
			if (!open && joined[jl - 1] != '<')
				joined[jl++] = ' ';
		}
		memcpy(joined + jl, t.s, t.len);
		jl += t.len;
		j.s = joined;
		j.len = jl;
		if (mailtext_attribution_text(j, 0) ||
		    mailtext_attribution_verbless(j)) {
			*strong = 1;
			return k + 1;
		}
		if (k == 0 && mailtext_ends(j, ":") && mailtext_has(j, '@'))
			return 1;
	}
	return 0;
}

/* A closing "-Name" line: a dash glued to a word, a short line. */
static int
mailtext_is_dash_name(const char *s)
{
	struct line t;

	t.s = s;
	t.len = strlen(s);
	return t.len >= 2 && s[0] == '-' && isalpha((unsigned char)s[1]) &&
	    mailtext_words(t) <= 3;
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
	{ "Takk", 0 },
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
	for (i = 0; i < t.len; i++)
		if (isdigit((unsigned char)s[i]) || strchr("#@:<>/=", s[i]))
			return 0;
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

/* Drop a sign-off block that ends what was read: "-Name"; "Cheers, Bob";
 * "Regards," (or "Viele Grüße", "С уважением", …) with up to three lines of
 * name, title and company below it, and after them the signature's address,
 * web address and telephone lines.  Whatever stands alone is kept: it may
 * be the one command. */
static void
mailtext_drop_signoff(struct mail_strv *out, int first)
{
	int s, k, command, punct, names, cut = -1;

	if (out->n > first && mailtext_is_dash_name(out->v[out->n - 1])) {
		free(out->v[--out->n]);
		out->v[out->n] = NULL;
	}
	for (s = out->n - 1; s >= first + 1 && s >= out->n - 7; s--) {
		if (s == out->n - 1 && mailtext_is_signoff_name(out->v[s])) {
			cut = s;
			break;
		}
		if (!mailtext_is_signoff(out->v[s], &command, &punct))
			continue;
		names = 0;
		for (k = s + 1; k < out->n && names < 3 &&
		    mailtext_is_name(out->v[k]); k++)
			names++;
		while (k < out->n && names > 0 &&
		    mailtext_is_sig_detail(out->v[k]))
			k++;
		if (k < out->n || (names == 0 && (command || !punct)))
			return;
		cut = s;
		break;
	}
	while (cut >= 0 && out->n > cut) {
		free(out->v[--out->n]);
		out->v[out->n] = NULL;
	}
}

void
mailtext_commands(const char *text, size_t len, int max_lines,
    int max_commands, struct mail_strv *out, int *lines_truncated,
    int *commands_truncated)
{
	struct line *lines = NULL;
	size_t i, start;
	int n = 0, cap = 0, k, strong, li, first = out->n;

	*lines_truncated = 0;
	*commands_truncated = 0;
	/* Split on LF, CRLF or a lone CR. */
	for (i = 0, start = 0; i <= len; i++) {
		if (i < len && text[i] != '\n' && text[i] != '\r')
			continue;
		if (i == len && i == start)
			break;	/* nothing after the last line end */
		if (max_lines > 0 && n >= max_lines) {
			*lines_truncated = 1;
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
	for (li = 0; li < n; li++) {
		struct line t = mailtext_trim(lines[li]);

		if (t.len == 0 || mailtext_is_quote(t))
			continue;
		if (mailtext_is_sigsep(t) || mailtext_is_rule(t) ||
		    mailtext_is_mobile_sig(t) ||
		    mailtext_is_original_marker(t) ||
		    mailtext_is_outlook_block(lines, n, li))
			break;
		if ((k = mailtext_attribution(lines, n, li, &strong)) > 0) {
			int j = li + k;

			while (j < n && mailtext_trim(lines[j]).len == 0)
				j++;
			/* Bottom-posting and inline replies: only the
			 * attribution goes; the quote rule drops the rest and
			 * what follows is the sender's.  Mobile clients put
			 * the attribution first and the reply below it. */
			if ((j < n && mailtext_is_quote(mailtext_trim(
			    lines[j]))) || (strong && out->n == first)) {
				li += k - 1;
				continue;
			}
			if (strong)
				break;
		}
		if (max_commands > 0 && out->n - first >= max_commands) {
			*commands_truncated = 1;
			break;
		}
		{
			char *c = xstrndup(t.s, t.len);

			mail_strv_add(out, c);
			free(c);
		}
	}
	mailtext_drop_signoff(out, first);
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
