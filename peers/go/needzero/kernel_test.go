package needzero

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"
)

const heapChildEnv = "ZEROLAB_NEEDZERO_HEAP_CHILD"

var sink *[64]byte

// TestFreedObjectChild is the child of TestClobberFree: it fills a 64-byte
// heap object with 0xAB, drops the only pointer to it, collects (runtime.GC
// also finishes the sweep, which frees it) and prints what the freed
// object's memory holds. Reading freed memory is what the seed's setting is
// for; nothing allocates between the collection and the read.
func TestFreedObjectChild(t *testing.T) {
	if os.Getenv(heapChildEnv) != "freed" {
		t.Skip("runs only as the child process of TestClobberFree")
	}
	sink = new([64]byte)
	for i := range sink {
		sink[i] = 0xAB
	}
	addr := uintptr(unsafe.Pointer(sink))
	sink = nil
	runtime.GC()
	// The address back as a pointer, through its storage (no conversion of
	// a uintptr value, which the collector could not see either way).
	freed := (*[64]byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr)))
	seen := *freed // copied before anything allocates into the freed slot
	fmt.Printf("freed: % X\n", seen[:16])
}

// freedBytes runs TestFreedObjectChild with `godebug` and returns the hex
// line it printed.
func freedBytes(t *testing.T, godebug string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestFreedObjectChild$", "-test.v")
	cmd.Env = append(os.Environ(), heapChildEnv+"=freed", "GODEBUG="+godebug)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child with GODEBUG=%s: %v\n%s", godebug, err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "freed: ") {
			return strings.TrimPrefix(l, "freed: ")
		}
	}
	t.Fatalf("child with GODEBUG=%s printed no freed bytes:\n%s", godebug, out)
	return ""
}

// TestClobberFree: with GODEBUG=clobberfree=1 the collector writes
// 0xdeadbeef over the freed object (little-endian EF BE AD DE); without it
// the freed object keeps its bytes (freed memory stays dirty).
func TestClobberFree(t *testing.T) {
	clobbered := freedBytes(t, "clobberfree=1")
	kept := freedBytes(t, "clobberfree=0")
	t.Logf("clobberfree=1: %s; clobberfree=0: %s", clobbered, kept)
	if want := strings.TrimSpace(strings.Repeat("EF BE AD DE ", 4)); clobbered != want {
		t.Errorf("clobberfree=1: the freed object holds %s, want 0xdeadbeef words (%s)", clobbered, want)
	}
	if want := strings.TrimSpace(strings.Repeat("AB ", 16)); kept != want {
		t.Errorf("clobberfree=0: the freed object holds %s, want its own AB bytes", kept)
	}
}

// TestScavengeChild is the child that strace watches: a fresh 64 MiB heap
// object (mmap'ed memory), written, dropped, collected, and handed back to
// the kernel with debug.FreeOSMemory, which scavenges every free page.
func TestScavengeChild(t *testing.T) {
	if os.Getenv(heapChildEnv) != "scavenge" {
		t.Skip("runs only as the child process of the strace tests")
	}
	b := make([]byte, 64<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	keep = b
	keep = nil
	runtime.GC()
	debug.FreeOSMemory()
}

// syscalls runs TestScavengeChild under `strace -f -e trace=mmap,madvise`
// (the seed's tool) with `godebug` and returns strace's lines.
func syscalls(t *testing.T, godebug string) []string {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("no strace on PATH (scripts/install-deps.sh installs it)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "strace.txt")
	cmd := exec.Command("strace", "-f", "-e", "trace=mmap,madvise", "-o", log, exe,
		"-test.run=^TestScavengeChild$")
	cmd.Env = append(os.Environ(), heapChildEnv+"=scavenge", "GODEBUG="+godebug)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace with GODEBUG=%s: %v\n%s", godebug, err, out)
	}
	text, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// count returns how many lines match re, and the first one.
func count(lines []string, re *regexp.Regexp) (int, string) {
	n, first := 0, ""
	for _, l := range lines {
		if re.MatchString(l) {
			if n == 0 {
				first = l
			}
			n++
		}
	}
	return n, first
}

var (
	// Read-write, private and anonymous: at an address the kernel picks
	// (sysAllocOS) or, for the heap, over the range reserved before (MAP_FIXED).
	anonMmap = regexp.MustCompile(`mmap\((NULL|0x[0-9a-f]+), (\d+), PROT_READ\|PROT_WRITE, MAP_PRIVATE(\|MAP_FIXED)?\|MAP_ANONYMOUS, -1, 0\) = 0x`)
	// Returning pages: madvise(addr, len, flag) = 0.
	dontneed = regexp.MustCompile(`madvise\(0x[0-9a-f]+, \d+, MADV_DONTNEED\) = 0`)
	free     = regexp.MustCompile(`madvise\(0x[0-9a-f]+, \d+, MADV_FREE\) = 0`)
)

// TestFreshMemoryIsAnonymousMmap: the runtime takes fresh memory from the
// kernel by mmap with MAP_ANON|MAP_PRIVATE, read-write (sysAllocOS), and
// at least one such mapping is as large as the 64 MiB object (the heap's
// arenas: reserved PROT_NONE first, then mapped read-write over the
// reservation with MAP_FIXED).
func TestFreshMemoryIsAnonymousMmap(t *testing.T) {
	lines := syscalls(t, "")
	n, first := count(lines, anonMmap)
	large := ""
	for _, l := range lines {
		if m := anonMmap.FindStringSubmatch(l); m != nil && large == "" {
			var size int64
			fmt.Sscanf(m[2], "%d", &size)
			if size >= 64<<20 {
				large = l
			}
		}
	}
	t.Logf("%d anonymous private read-write mmaps; first: %s; the first of at least 64 MiB: %s", n, first, large)
	if n == 0 || large == "" {
		t.Errorf("want anonymous private read-write mmaps, one of at least 64 MiB, in:\n%s", strings.Join(lines, "\n"))
	}
}

// TestScavengerUsesMadvDontneed: by default the pages handed back go by
// madvise(MADV_DONTNEED), and none by MADV_FREE.
func TestScavengerUsesMadvDontneed(t *testing.T) {
	lines := syscalls(t, "")
	nd, first := count(lines, dontneed)
	nf, _ := count(lines, free)
	t.Logf("default: %d madvise(MADV_DONTNEED), %d madvise(MADV_FREE); first: %s", nd, nf, first)
	if nd == 0 || nf != 0 {
		t.Errorf("want MADV_DONTNEED and no MADV_FREE in:\n%s", strings.Join(lines, "\n"))
	}
}

// TestMadvdontneed0UsesMadvFree: with GODEBUG=madvdontneed=0 the runtime
// switches to MADV_FREE, and none go by MADV_DONTNEED.
func TestMadvdontneed0UsesMadvFree(t *testing.T) {
	lines := syscalls(t, "madvdontneed=0")
	nf, first := count(lines, free)
	nd, _ := count(lines, dontneed)
	t.Logf("madvdontneed=0: %d madvise(MADV_FREE), %d madvise(MADV_DONTNEED); first: %s", nf, nd, first)
	if nf == 0 || nd != 0 {
		t.Errorf("want MADV_FREE and no MADV_DONTNEED in:\n%s", strings.Join(lines, "\n"))
	}
}
