package copy

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Both copyZeroAlloc versions copy every byte, for every pair of the PR.
func TestBothCopyEveryPair(t *testing.T) {
	path := payload(t)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ways {
		// file -> bytes.Buffer, strings.Builder, file
		var buf bytes.Buffer
		if _, err := w.f(&buf, open(t, path, os.O_RDONLY)); err != nil || !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s OSFileToBytesBuffer: %d bytes, err %v", w.name, buf.Len(), err)
		}
		var sb strings.Builder
		if _, err := w.f(&sb, open(t, path, os.O_RDONLY)); err != nil || sb.String() != string(want) {
			t.Errorf("%s OSFileToStringsBuilder: %d bytes, err %v", w.name, sb.Len(), err)
		}
		dst := filepath.Join(t.TempDir(), "dst")
		if _, err := w.f(open(t, dst, os.O_WRONLY|os.O_CREATE), open(t, path, os.O_RDONLY)); err != nil {
			t.Errorf("%s OSFileToOSFile: %v", w.name, err)
		} else if got, _ := os.ReadFile(dst); !bytes.Equal(got, want) {
			t.Errorf("%s OSFileToOSFile: %d bytes", w.name, len(got))
		}
		// limited reader -> file: exactly 1024 bytes
		dst2 := filepath.Join(t.TempDir(), "dst")
		lr := io.LimitReader(open(t, path, os.O_RDONLY), 1024)
		if _, err := w.f(open(t, dst2, os.O_WRONLY|os.O_CREATE), lr); err != nil {
			t.Errorf("%s IOLimitedReaderToOSFile: %v", w.name, err)
		} else if got, _ := os.ReadFile(dst2); !bytes.Equal(got, want[:1024]) {
			t.Errorf("%s IOLimitedReaderToOSFile: %d bytes", w.name, len(got))
		}
		// bytes.Buffer -> file
		dst3 := filepath.Join(t.TempDir(), "dst")
		if _, err := w.f(open(t, dst3, os.O_WRONLY|os.O_CREATE), bytes.NewBuffer(append([]byte(nil), want...))); err != nil {
			t.Errorf("%s BytesBufferToOSFile: %v", w.name, err)
		} else if got, _ := os.ReadFile(dst3); !bytes.Equal(got, want) {
			t.Errorf("%s BytesBufferToOSFile: %d bytes", w.name, len(got))
		}
		// file -> TCP -> file
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				got <- nil
				return
			}
			dst4 := filepath.Join(t.TempDir(), "dst")
			f, _ := os.Create(dst4)
			w.f(f, c.(*net.TCPConn)) // NetConnToOSFile
			f.Close()
			c.Close()
			b, _ := os.ReadFile(dst4)
			got <- b
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.f(c.(*net.TCPConn), open(t, path, os.O_RDONLY)); err != nil { // OSFileToNetConn
			t.Errorf("%s OSFileToNetConn: %v", w.name, err)
		}
		c.Close()
		if b := <-got; !bytes.Equal(b, want) {
			t.Errorf("%s OSFileToNetConn+NetConnToOSFile: %d bytes arrived", w.name, len(b))
		}
		ln.Close()
	}
}
