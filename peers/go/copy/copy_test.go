package copy

// The PR's seven benchmarks (fasthttp's BenchmarkCopyZeroAlloc*), each run
// with the old and the new copyZeroAlloc as BenchmarkCopy/<Pair>/old and
// /new, the names the C++ port uses. As in fasthttp, the source file is
// opened once and never rewound (only the destination is seeked), so after
// the first op the file readers are at end of file; NetConnToOSFile dials a
// new connection per op outside the timer. The PR read fasthttp's README.md;
// here the source is a 16 KiB file of letters made in a temporary directory.

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const payloadSize = 16 << 10

type copyFunc func(io.Writer, io.Reader) (int64, error)

var ways = []struct {
	name string
	f    copyFunc
}{{"old", copyZeroAllocOld}, {"new", copyZeroAllocNew}}

// payload writes the 16 KiB source file and returns its path.
func payload(tb testing.TB) string {
	data := make([]byte, payloadSize)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	path := filepath.Join(tb.TempDir(), "src")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

func open(tb testing.TB, path string, flag int) *os.File {
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

func seek(b *testing.B, f *os.File) {
	if _, err := f.Seek(0, 0); err != nil {
		b.Fatal(err)
	}
}

func copyOrFail(b *testing.B, f copyFunc, w io.Writer, r io.Reader) {
	if _, err := f(w, r); err != nil {
		b.Fatal(err)
	}
}

func benchOSFileToBytesBuffer(b *testing.B, f copyFunc) {
	r := open(b, payload(b), os.O_RDONLY)
	buf := &bytes.Buffer{}
	m := countExact(b)
	for i := 0; i < b.N; i++ {
		buf.Reset()
		copyOrFail(b, f, buf, r)
	}
	m.stopTimer()
}

func benchBytesBufferToOSFile(b *testing.B, f copyFunc) {
	src := open(b, payload(b), os.O_RDONLY)
	buf := &bytes.Buffer{}
	if _, err := io.Copy(buf, src); err != nil {
		b.Fatal(err)
	}
	w := open(b, filepath.Join(b.TempDir(), "dst"), os.O_WRONLY|os.O_CREATE)
	m := countExact(b)
	for i := 0; i < b.N; i++ {
		seek(b, w)
		copyOrFail(b, f, w, buf) // as in fasthttp: buf is drained by the first op
	}
	m.stopTimer()
}

func benchOSFileToStringsBuilder(b *testing.B, f copyFunc) {
	r := open(b, payload(b), os.O_RDONLY)
	w := &strings.Builder{}
	m := countExact(b)
	for i := 0; i < b.N; i++ {
		w.Reset()
		copyOrFail(b, f, w, r)
	}
	m.stopTimer()
}

func benchIOLimitedReaderToOSFile(b *testing.B, f copyFunc) {
	r := io.LimitReader(open(b, payload(b), os.O_RDONLY), 1024)
	w := open(b, filepath.Join(b.TempDir(), "dst"), os.O_WRONLY|os.O_CREATE)
	m := countExact(b)
	for i := 0; i < b.N; i++ {
		seek(b, w)
		copyOrFail(b, f, w, r)
	}
	m.stopTimer()
}

func benchOSFileToOSFile(b *testing.B, f copyFunc) {
	r := open(b, payload(b), os.O_RDONLY)
	w := open(b, filepath.Join(b.TempDir(), "dst"), os.O_WRONLY|os.O_CREATE)
	m := countExact(b)
	for i := 0; i < b.N; i++ {
		seek(b, w)
		copyOrFail(b, f, w, r)
	}
	m.stopTimer()
}

func benchOSFileToNetConn(b *testing.B, f copyFunc) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		io.Copy(io.Discard, conn)
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	file := open(b, payload(b), os.O_RDONLY)
	m := countExact(b)
	for i := 0; i < b.N; i++ {
		copyOrFail(b, f, conn, file)
	}
	m.stopTimer()
}

func benchNetConnToOSFile(b *testing.B, f copyFunc) {
	data, err := os.ReadFile(payload(b))
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	writeDone := make(chan struct{}, 1)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Write(data)
			conn.Close()
			writeDone <- struct{}{}
		}
	}()
	file := open(b, filepath.Join(b.TempDir(), "dst"), os.O_WRONLY|os.O_CREATE)
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	m := countExact(b)
	for i := 0; i < b.N; i++ {
		m.stopTimer()
		<-writeDone
		seek(b, file)
		m.startTimer()
		copyOrFail(b, f, file, conn)
		m.stopTimer()
		conn.Close()
		if conn, err = net.Dial("tcp", ln.Addr().String()); err != nil {
			b.Fatal(err)
		}
	}
	m.stopTimer()
	conn.Close()
}

func BenchmarkCopy(b *testing.B) {
	pairs := []struct {
		name string
		run  func(*testing.B, copyFunc)
	}{
		{"OSFileToBytesBuffer", benchOSFileToBytesBuffer},
		{"BytesBufferToOSFile", benchBytesBufferToOSFile},
		{"OSFileToStringsBuilder", benchOSFileToStringsBuilder},
		{"IOLimitedReaderToOSFile", benchIOLimitedReaderToOSFile},
		{"OSFileToOSFile", benchOSFileToOSFile},
		{"OSFileToNetConn", benchOSFileToNetConn},
		{"NetConnToOSFile", benchNetConnToOSFile},
	}
	for _, p := range pairs {
		for _, w := range ways {
			run, f := p.run, w.f
			b.Run(p.name+"/"+w.name, func(b *testing.B) {
				b.ReportAllocs()
				run(b, f)
			})
		}
	}
}
