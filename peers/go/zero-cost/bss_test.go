package bss

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// built is one program's binary: its file size, its .noptrbss section and
// its writable LOAD segment.
type built struct {
	size             int64
	noptrbss         *elf.Section
	rwFile, rwMemory uint64
}

func build(t *testing.T, name string) built {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"go.mod": "module " + name + "\n\ngo 1.19\n", "main.go": Programs[name]}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "bin_"+name)
	cmd := exec.Command("go", "build", "-o", exe, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	st, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := built{size: st.Size(), noptrbss: f.Section(".noptrbss")}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_W != 0 {
			b.rwFile, b.rwMemory = p.Filesz, p.Memsz
		}
	}
	return b
}

// bssProblems lists where the three builds differ from the seed's
// account; none means it holds.
func bssProblems(empty, zeroed, static built) []string {
	var p []string
	if zeroed.noptrbss == nil || zeroed.noptrbss.Type != elf.SHT_NOBITS || zeroed.noptrbss.Size < 64<<20 {
		p = append(p, fmt.Sprintf("zeroed: want a NOBITS .noptrbss of at least 64 MiB, got %+v", zeroed.noptrbss))
	}
	if d := zeroed.size - empty.size; d < 0 || d >= 4096 {
		p = append(p, fmt.Sprintf("64 MiB of zeros cost %d bytes of file, want under 4096 (the seed: 121)", d))
	}
	if zeroed.rwFile != empty.rwFile || zeroed.rwMemory < empty.rwMemory+64<<20 {
		p = append(p, fmt.Sprintf("RW segment: FileSiz %#x vs %#x, MemSiz %#x vs %#x; want equal FileSiz and MemSiz +0x4000000",
			zeroed.rwFile, empty.rwFile, zeroed.rwMemory, empty.rwMemory))
	}
	if d := static.size - empty.size; d < 4<<20 {
		p = append(p, fmt.Sprintf("4 MiB of non-zero static data cost %d bytes of file, want at least 4 MiB", d))
	}
	return p
}

func TestBSS(t *testing.T) {
	empty, zeroed, static := build(t, "empty"), build(t, "zeroed"), build(t, "static")
	t.Logf("file sizes: empty %d, zeroed %d (%+d), static %d (%+d)", empty.size, zeroed.size,
		zeroed.size-empty.size, static.size, static.size-empty.size)
	for _, p := range bssProblems(empty, zeroed, static) {
		t.Error(p)
	}
	// The check can fail: with the zeroed and static programs swapped, all
	// four of its conditions are false.
	if p := bssProblems(empty, static, zeroed); len(p) != 4 {
		t.Errorf("swapped builds: want 4 problems, got %d: %q", len(p), p)
	}
}
