// The windowed channels-last A loader (KernelConfig::inputWindow): conv2d_coopmat_nhwc.comp
// compiled with VKCONV_NHWC_WINDOW (conv2d_coopmat_nhwc_window_f16), over the same packed input
// as the plain channels-last loader. The K order has the taps inside each BK-channel slice
// (TAPS_INNER), so the R*S slices of one channel slice read the same input pixels. The plain loader
// reads BM rows from memory for each of them; this one reads the pixels the tile's rows can reach
// once per channel slice (the window) into shared memory, and copies each tap's A tile from there
// into the A stage, zero where the tap falls outside the image. A's traffic from memory drops from
// R*S*BM pixels a channel slice to WINDOW_PIXELS.
//
// The window is a run of whole input rows of the chunk's packed images taken as one stack of rows
// (stacked row image*IN_H + ih, so that a tile crossing into the next image reads on into it): from
// the top input row the tile's first output row reaches, WINDOW_PIXELS pixels. The host sizes it
// for the worst tile (src/nhwc_input.cpp: nhwcWindowRows); a copy that would fall outside it reads
// zero rather than another tile's shared memory.
//
// Its loads go into registers at the channel slice's first tap (loadA), two slices before that tap
// is stored (storeA): the window is stored then, a barrier apart from the copies out of it. The
// copies of the slice before read the old window before the pipeline's barrier that precedes this
// store, so one window buffer serves, at one extra barrier a channel slice.
//
// Include after the channels-last loader's declarations of conv2d_coopmat_nhwc.comp (input_words,
// BK_WORDS, sA, A_ROW_WORDS, A_WORDS) and before its pipeline.

layout(constant_id = 64) const uint WINDOW_PIXELS = 1;  // nhwcWindowRows * IN_W
const uint WINDOW_WORDS = WINDOW_PIXELS * BK_WORDS;
shared uvec4 sWindow[WINDOW_WORDS];
const uint WINDOW_PER_THREAD = (WINDOW_WORDS + THREADS - 1) / THREADS;
uvec4 windowWords[WINDOW_PER_THREAD];

// The pipeline's own A register sets go unused: the window has the registers above.
#define A_REG uint
const uint A_PER_THREAD = 1;
const uint A_COPIES = (A_WORDS + THREADS - 1) / THREADS;  // A words each thread copies a slice
const uint TAPS = KERNEL_R * KERNEL_S;

// The A rows this thread copies: the window row of input row 0 of the row's image (may be
// negative) and the input row and column of tap (0, 0); rows past M get a row no tap brings inside.
int aWindowRow[A_COPIES];
int aIh[A_COPIES], aIw[A_COPIES];
uint windowPixel0, chunkPixels;
uint tileM0, nTile;

void initRows() {
    const uint image0 = tileM0 / OUT_HW, oh0 = (tileM0 - image0 * OUT_HW) / OUT_W;
    const uint row0 = image0 * IN_H + uint(clamp(int(oh0) * STRIDE_H - PAD_H, 0, int(IN_H)));
    windowPixel0 = row0 * IN_W;
    chunkPixels = chunk.m_rows / OUT_HW * IN_HW;
    [[unroll]] for (uint i = 0; i < A_COPIES; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const uint m = tileM0 + v / BK_WORDS;
        const uint image = m / OUT_HW, pix = m - image * OUT_HW;
        const uint oh = pix / OUT_W, ow = pix - oh * OUT_W;
        aWindowRow[i] = int(image * IN_H) - int(row0);
        aIh[i] = m < chunk.m_rows ? int(oh) * STRIDE_H - PAD_H : -(1 << 28);
        aIw[i] = int(ow) * STRIDE_W - PAD_W;
    }
}

// Slice t: at a channel slice's first tap, that slice's window into windowWords.
void loadA(uint t, out uint a[A_PER_THREAD]) {
    a[0] = 0u;
    const uint slice = t / TAPS;
    if (t != slice * TAPS) return;
    const uint cWord = slice * BK_WORDS;
    [[unroll]] for (uint i = 0; i < WINDOW_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const uint pixel = windowPixel0 + v / BK_WORDS;
        const bool inside = v < WINDOW_WORDS && pixel < chunkPixels && (DEBUG_SKIP & 1u) == 0u;
        windowWords[i] = inside ? input_words[pixel * NHWC_WORDS + cWord + v % BK_WORDS] : uvec4(0);
    }
}

// Slice t into A stage `stage`: at a channel slice's first tap the window first; then the tap's
// rows out of it.
void storeA(uint stage, uint t, uint a[A_PER_THREAD]) {
    const uint slice = t / TAPS, tap = t - slice * TAPS;
    if (tap == 0) {
        [[unroll]] for (uint i = 0; i < WINDOW_PER_THREAD; ++i) {
            const uint v = gl_LocalInvocationIndex + i * THREADS;
            if (v < WINDOW_WORDS) sWindow[v] = windowWords[i];
        }
        barrier();
    }
    const uint r = tap / KERNEL_S, s = tap - r * KERNEL_S;
    [[unroll]] for (uint i = 0; i < A_COPIES; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const int ih = aIh[i] + int(r) * DIL_H, iw = aIw[i] + int(s) * DIL_W;
        const uint pixel = uint((aWindowRow[i] + ih) * int(IN_W) + iw);
        const bool inside = uint(ih) < IN_H && uint(iw) < IN_W && pixel < WINDOW_PIXELS;
        if (v < A_WORDS)
            sA[(stage * BM + v / BK_WORDS) * A_ROW_WORDS + v % BK_WORDS] =
                inside ? sWindow[pixel * BK_WORDS + v % BK_WORDS] : uvec4(0);
    }
}
