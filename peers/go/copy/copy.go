// Package copy is seed 003's subject, fasthttp PR #1893 ("perf: improve
// copyZeroAlloc for os.File and net.TCPConn"), written with the standard
// library since fasthttp cannot be fetched here: copyZeroAllocOld is
// copyZeroAlloc before the PR (WriterTo, then ReaderFrom, then a pooled
// buffer), copyZeroAllocNew after it (the PR's table: *os.File and
// *net.TCPConn go to ReadFrom only where the kernel can copy, otherwise the
// pooled buffer). It is the Go peer of the lab's `copy` experiment
// (lab/experiments/copy.cpp); copy_test.go has the PR's seven benchmarks.
//
// Adaptations Go 1.19 required (each one line):
//   - Go 1.19's *os.File and *net.TCPConn have no WriteTo (Go 1.22 added
//     both); the PR's old path went through them, so fileWriteTo and
//     connWriteTo here do what Go 1.22's do on Linux: sendfile to a TCP
//     socket, otherwise io.Copy through a wrapper that hides WriteTo (for a
//     file that is the 32 KiB buffer io.Copy allocates per call);
//   - Go 1.19's (*os.File).ReadFrom has no splice from a socket (Go 1.21), so
//     NetConnToOSFile's new path here copies through io.Copy's buffer, where
//     the PR's Go spliced;
//   - the pool holds *[]byte of 4096 bytes, fasthttp's copyBufPool size.
//
// Example:
//
//	n, err := copyZeroAllocNew(dst, src)
package copy

import (
	"io"
	"net"
	"os"
	"sync"
)

var copyBufPool = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

// pooledCopy copies through a pooled buffer with a plain read/write loop
// (fasthttp's copyBuffer: io.CopyBuffer without its WriterTo and
// ReaderFrom checks).
func pooledCopy(w io.Writer, r io.Reader) (written int64, err error) {
	bp := copyBufPool.Get().(*[]byte)
	defer copyBufPool.Put(bp)
	buf := *bp
	for {
		nr, er := r.Read(buf)
		if nr > 0 {
			nw, ew := w.Write(buf[:nr])
			written += int64(nw)
			if ew != nil {
				return written, ew
			}
			if nw != nr {
				return written, io.ErrShortWrite
			}
		}
		if er == io.EOF {
			return written, nil
		}
		if er != nil {
			return written, er
		}
	}
}

// fileWithoutWriteTo hides a file's methods but Read, as Go 1.22's
// genericWriteTo does.
type fileWithoutWriteTo struct{ f *os.File }

func (x fileWithoutWriteTo) Read(p []byte) (int, error) { return x.f.Read(p) }

// fileWriteTo is Go 1.22's (*os.File).WriteTo on Linux: sendfile when w is
// a TCP connection, otherwise io.Copy(w, fileWithoutWriteTo{f}).
func fileWriteTo(f *os.File, w io.Writer) (int64, error) {
	if c, ok := w.(*net.TCPConn); ok {
		return c.ReadFrom(f) // Go 1.19's TCPConn.ReadFrom of a file: sendfile
	}
	return io.Copy(w, fileWithoutWriteTo{f})
}

// tcpConnWithoutWriteTo is Go 1.22's wrapper: the connection's methods but
// WriteTo (it keeps SyscallConn, so a file's ReadFrom could splice).
type tcpConnWithoutWriteTo struct{ *net.TCPConn }

// connWriteTo is Go 1.22's (*net.TCPConn).WriteTo for a non-Unix-socket w.
func connWriteTo(c *net.TCPConn, w io.Writer) (int64, error) {
	return io.Copy(w, tcpConnWithoutWriteTo{c})
}

// copyZeroAllocOld is copyZeroAlloc before the PR, as it ran on the PR's Go.
func copyZeroAllocOld(w io.Writer, r io.Reader) (int64, error) {
	switch r := r.(type) {
	case *os.File:
		return fileWriteTo(r, w)
	case *net.TCPConn:
		return connWriteTo(r, w)
	case io.WriterTo:
		return r.WriteTo(w)
	}
	if rf, ok := w.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return pooledCopy(w, r)
}

// copyZeroAllocNew is copyZeroAlloc after the PR: its table of which side's
// method to use (o = the pooled buffer, r = ReadFrom, w = WriteTo).
func copyZeroAllocNew(w io.Writer, r io.Reader) (int64, error) {
	var readerIsFile, readerIsConn bool
	switch r := r.(type) {
	case *os.File:
		readerIsFile = true
	case *net.TCPConn:
		readerIsConn = true
	case io.WriterTo:
		return r.WriteTo(w)
	}
	switch w := w.(type) {
	case *os.File:
		if readerIsConn {
			return w.ReadFrom(r)
		}
	case *net.TCPConn:
		if readerIsFile {
			return w.ReadFrom(r) // sendfile
		}
	case io.ReaderFrom:
		return w.ReadFrom(r)
	}
	return pooledCopy(w, r)
}
