/*
 * aiplane-stt-pocketsphinx: the local speech engine's helper process (docs/adr/0036).
 *
 * Reads raw 16 kHz mono signed 16-bit little-endian PCM on stdin until end of file and writes
 * one JSON object per line on stdout:
 *
 *   {"type":"ready"}                                   the model is loaded; audio is read now
 *   {"type":"partial","text":…,"start_ms":…,"end_ms":…} the utterance so far (--partial-ms > 0)
 *   {"type":"final","text":…,"start_ms":…,"end_ms":…,"words":[{"word","start_ms","end_ms"}]}
 *                                                      an utterance ended at a pause, or at EOF
 *   {"type":"end"}                                     EOF was read and everything was said
 *   {"type":"error","message":…}                       the decoder could not start (exit 2)
 *
 * Times are milliseconds of the stream (samples read / 16). PocketSphinx's voice activity
 * detector ends an utterance after --postspeech frames (10 ms each) without speech.
 * Its log goes to stderr from warnings up; informational lines are dropped.
 *
 * usage: aiplane-stt-pocketsphinx --hmm DIR --lm FILE --dict FILE
 *                                 [--partial-ms N] [--postspeech FRAMES]
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pocketsphinx.h>
#include <sphinxbase/err.h>

#define RATE 16000
#define SAMPLES_PER_FRAME 160 /* 10 ms at 16 kHz, PocketSphinx's default frame rate */
#define CHUNK_SAMPLES 1024    /* what one read takes at most: 64 ms */
#define BLOCK_SAMPLES 320     /* what the decoder is handed at once: 20 ms */

static int log_keep = 0; /* whether ERR_INFOCONT lines continue a kept line */

static void log_filter(void *user_data, err_lvl_t lvl, const char *fmt, ...) {
  (void)user_data;
  if (lvl != ERR_INFOCONT) log_keep = lvl >= ERR_WARN;
  if (!log_keep) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

/* Writes s as a JSON string (the dictionary's words are ASCII; anything else is escaped). */
static void json_string(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f) printf("\\u%04x", *p);
    else putchar(*p);
  }
  putchar('"');
}

/* A recognised word without its alternative-pronunciation mark ("read(2)" → "read"); 0 for
 * silence, sentence marks and fillers ("<s>", "<sil>", "[NOISE]"). */
static size_t word_length(const char *w) {
  if (w == NULL || w[0] == '<' || w[0] == '[' || w[0] == '\0') return 0;
  const char *paren = strchr(w, '(');
  return paren ? (size_t)(paren - w) : strlen(w);
}

/* The hypothesis as words separated by one space, marks removed, into out (size cap). */
static void clean_text(const char *hyp, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  if (hyp == NULL) return;
  const char *p = hyp;
  while (*p) {
    while (*p == ' ') p++;
    const char *start = p;
    while (*p && *p != ' ') p++;
    size_t len = (size_t)(p - start);
    char word[256];
    if (len == 0 || len >= sizeof word) continue;
    memcpy(word, start, len);
    word[len] = '\0';
    size_t keep = word_length(word);
    if (keep == 0 || n + keep + 2 > cap) continue;
    if (n > 0) out[n++] = ' ';
    memcpy(out + n, word, keep);
    n += keep;
    out[n] = '\0';
  }
}

static long long ms_of(long long samples) { return samples * 1000 / RATE; }

/* Where the utterance being decoded started: read `pos` samples in, the decoder has taken
 * this many frames of it (its voice activity detector passes the frames before the speech on). */
static long long utterance_start(ps_decoder_t *ps, long long pos) {
  long long start = pos - (long long)ps_get_n_frames(ps) * SAMPLES_PER_FRAME;
  return start < 0 ? 0 : start;
}

/* Ends the utterance that started at sample `start` and was read up to sample `pos`; writes
 * its final result when it has words (from its first word to its last; `start` and `pos` when
 * it has none the dictionary knows). */
static void finish_utterance(ps_decoder_t *ps, long long start, long long pos) {
  ps_end_utt(ps);
  static char text[65536];
  clean_text(ps_get_hyp(ps, NULL), text, sizeof text);
  if (text[0] == '\0') return;
  long long first = -1, last = -1;
  int words = 0;
  printf("{\"type\":\"final\",\"text\":");
  json_string(text);
  printf(",\"words\":[");
  for (ps_seg_t *seg = ps_seg_iter(ps); seg != NULL; seg = ps_seg_next(seg)) {
    const char *w = ps_seg_word(seg);
    size_t keep = word_length(w);
    if (keep == 0 || keep >= 256) continue;
    char word[256];
    memcpy(word, w, keep);
    word[keep] = '\0';
    int sf, ef;
    ps_seg_frames(seg, &sf, &ef);
    /* Frames are counted from the start of the stream, silence included. */
    long long ws = ms_of((long long)sf * SAMPLES_PER_FRAME);
    long long we = ms_of((long long)(ef + 1) * SAMPLES_PER_FRAME);
    if (first < 0) first = ws;
    last = we;
    printf("%s{\"word\":", words++ ? "," : "");
    json_string(word);
    printf(",\"start_ms\":%lld,\"end_ms\":%lld}", ws, we);
  }
  if (first < 0) {
    first = ms_of(start);
    last = ms_of(pos);
  }
  printf("],\"start_ms\":%lld,\"end_ms\":%lld}\n", first, last);
  fflush(stdout);
}

/* The stream's state between blocks. */
struct stream {
  ps_decoder_t *ps;
  long partial_ms;
  int in_utterance;
  long long pos, partial_due, start; /* in samples */
};

static char last_partial[65536], partial_text[65536];

static void to_samples(const unsigned char *bytes, size_t n, int16 *out) {
  for (size_t i = 0; i < n; i++) out[i] = (int16)(bytes[2 * i] | (bytes[2 * i + 1] << 8));
}

/* Decodes one block and follows the voice activity detector: an utterance starts with speech
 * and ends (final result) with the pause. Blocks have a fixed size, so where utterances start
 * and end, and what is decoded, does not depend on how the input arrived. */
static void step(struct stream *st, const int16 *samples, size_t n) {
  ps_decoder_t *ps = st->ps;
  ps_process_raw(ps, samples, n, FALSE, FALSE);
  st->pos += (long long)n;
  int speech = ps_get_in_speech(ps);
  if (speech && !st->in_utterance) {
    st->in_utterance = 1;
    st->start = utterance_start(ps, st->pos);
    last_partial[0] = '\0';
    st->partial_due = st->pos + st->partial_ms * RATE / 1000;
  } else if (!speech && st->in_utterance) {
    finish_utterance(ps, st->start, st->pos);
    ps_start_utt(ps);
    st->in_utterance = 0;
  } else if (st->in_utterance && st->partial_ms > 0 && st->pos >= st->partial_due) {
    st->partial_due = st->pos + st->partial_ms * RATE / 1000;
    clean_text(ps_get_hyp(ps, NULL), partial_text, sizeof partial_text);
    if (partial_text[0] != '\0' && strcmp(partial_text, last_partial) != 0) {
      strcpy(last_partial, partial_text);
      printf("{\"type\":\"partial\",\"text\":");
      json_string(partial_text);
      printf(",\"start_ms\":%lld,\"end_ms\":%lld}\n", ms_of(st->start), ms_of(st->pos));
      fflush(stdout);
    }
  }
}

static const char *arg_value(int argc, char **argv, const char *name) {
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *hmm = arg_value(argc, argv, "--hmm");
  const char *lm = arg_value(argc, argv, "--lm");
  const char *dict = arg_value(argc, argv, "--dict");
  const char *partial_arg = arg_value(argc, argv, "--partial-ms");
  const char *post_arg = arg_value(argc, argv, "--postspeech");
  if (hmm == NULL || lm == NULL || dict == NULL) {
    fprintf(stderr, "usage: %s --hmm DIR --lm FILE --dict FILE [--partial-ms N] [--postspeech FRAMES]\n",
            argv[0]);
    return 2;
  }
  long partial_ms = partial_arg ? strtol(partial_arg, NULL, 10) : 0;
  const char *postspeech = post_arg ? post_arg : "50";

  err_set_callback(log_filter, NULL);
  err_set_logfp(NULL);
  cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE, "-hmm", hmm, "-lm", lm, "-dict", dict,
                                 "-samprate", "16000", "-vad_postspeech", postspeech, "-dither", "yes",
                                 "-seed", "1", NULL);
  ps_decoder_t *ps = config ? ps_init(config) : NULL;
  if (ps == NULL) {
    printf("{\"type\":\"error\",\"message\":\"the PocketSphinx decoder could not start\"}\n");
    fflush(stdout);
    return 2;
  }
  printf("{\"type\":\"ready\"}\n");
  fflush(stdout);

  ps_start_stream(ps);
  ps_start_utt(ps);
  struct stream st = {ps, partial_ms, 0, 0, 0, 0};
  unsigned char bytes[CHUNK_SAMPLES * 2];
  size_t have = 0; /* bytes read and not yet decoded: less than one block */
  int16 block[BLOCK_SAMPLES];
  for (;;) {
    ssize_t got = read(STDIN_FILENO, bytes + have, sizeof bytes - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += (size_t)got;
    size_t at = 0;
    for (; have - at >= BLOCK_SAMPLES * 2; at += BLOCK_SAMPLES * 2) {
      to_samples(bytes + at, BLOCK_SAMPLES, block);
      step(&st, block, BLOCK_SAMPLES);
    }
    memmove(bytes, bytes + at, have - at);
    have -= at;
  }
  if (have >= 2) {
    to_samples(bytes, have / 2, block);
    step(&st, block, have / 2);
  }
  finish_utterance(ps, st.in_utterance ? st.start : utterance_start(ps, st.pos), st.pos);
  printf("{\"type\":\"end\"}\n");
  fflush(stdout);
  ps_free(ps);
  cmd_ln_free_r(config);
  return 0;
}
