// Package oid is the Go peer of zerolab's `oid` lab experiment
// (lab/experiments/oid.cpp, oid.hpp): seed 001's OID formatters and parsers,
// written again from the seed's description so that the C++ variants can be
// timed against Go's on the same machine (zerolab lab oid runs this peer).
//
// An OID is up to five dot-separated sections of 0..999 packed into an int64
// (n = s0 + 1000*s1 + ...); the string starts with the least significant
// section and stops at the last non-zero one: 1002003 is "3.2.1", 0 is "0".
//
// Go 1.19 (Debian 12's golang-go) has no unique package, so Memoized stores
// the formatted string itself in the sync.Map: one string per OID, as the
// seed's unique.Handle gives.
//
// The package has no dependencies beyond the standard library.
package oid

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"sync"
)

const (
	sections = 5
	mul      = 1000
	maxOID   = int64(mul*mul*mul*mul*mul) - 1 // 999.999.999.999.999
	maxLen   = len("999.999.999.999.999")
)

// FormatFoolish concatenates a FormatInt temporary per section with +=.
func FormatFoolish(n int64) string {
	var s string
	for {
		s += strconv.FormatInt(n%mul, 10)
		n /= mul
		if n == 0 {
			return s
		}
		s += "."
	}
}

// FormatNaive writes FormatInt temporaries into a bytes.Buffer.
func FormatNaive(n int64) string {
	var b bytes.Buffer
	for {
		b.WriteString(strconv.FormatInt(n%mul, 10))
		n /= mul
		if n == 0 {
			return b.String()
		}
		b.WriteByte('.')
	}
}

// FormatStringBuilder grows a strings.Builder to the maximum length once,
// then writes FormatInt temporaries into it.
func FormatStringBuilder(n int64) string {
	var b strings.Builder
	b.Grow(maxLen + 1)
	for {
		b.WriteString(strconv.FormatInt(n%mul, 10))
		n /= mul
		if n == 0 {
			return b.String()
		}
		b.WriteByte('.')
	}
}

// FormatAppendInt appends each section with strconv.AppendInt into a byte
// slice of the maximum length; the final string is the one allocation left.
func FormatAppendInt(n int64) string {
	b := make([]byte, 0, maxLen+1)
	for {
		b = strconv.AppendInt(b, n%mul, 10)
		n /= mul
		if n == 0 {
			return string(b)
		}
		b = append(b, '.')
	}
}

// table holds entry i at 4*i: i right-aligned in three bytes, then '.'.
var table = func() [4 * mul]byte {
	var t [4 * mul]byte
	for i := 0; i < mul; i++ {
		e := t[4*i : 4*i+4]
		e[0], e[1] = ' ', ' '
		if i >= 100 {
			e[0] = byte('0' + i/100)
		}
		if i >= 10 {
			e[1] = byte('0' + i/10%10)
		}
		e[2] = byte('0' + i%10)
		e[3] = '.'
	}
	return t
}()

// FormatStringTable copies pre-formatted "ddd." entries into a stack buffer
// and makes the string once, without the last dot.
func FormatStringTable(n int64) string {
	var buf [maxLen + 1]byte
	i := 0
	for s := 0; s < sections; s++ {
		section := n % mul
		from := 4 * section
		switch {
		case section < 10:
			from += 2
		case section < 100:
			from++
		}
		i += copy(buf[i:], table[from:4*section+4])
		n /= mul
		if n == 0 {
			break
		}
	}
	return string(buf[:i-1])
}

// FormatMemoized returns the cached string of n, formatting and storing it
// (FormatStringTable) the first time n is seen.
func FormatMemoized(cache *sync.Map, n int64) string {
	if v, ok := cache.Load(n); ok {
		return v.(string)
	}
	v, _ := cache.LoadOrStore(n, FormatStringTable(n))
	return v.(string)
}

var (
	errEmpty    = errors.New("empty OID")
	errSections = errors.New("too many sections")
	errRange    = errors.New("section >= 1000")
)

// ParseNaive splits s on dots and converts each section with strconv.Atoi,
// the last section first.
func ParseNaive(s string) (int64, error) {
	if s == "" {
		return 0, errEmpty
	}
	parts := strings.Split(s, ".")
	if len(parts) > sections {
		return 0, errSections
	}
	var v int64
	for i := len(parts) - 1; i >= 0; i-- {
		x, err := strconv.Atoi(parts[i])
		if err != nil {
			return 0, err
		}
		if x < 0 || x >= mul {
			return 0, errRange
		}
		v = v*mul + int64(x)
	}
	return v, nil
}

// ParseNoAlloc walks s from the back with strings.LastIndexByte and
// converts each section in place with strconv.ParseInt: no allocation
// unless the input is bad.
func ParseNoAlloc(s string) (int64, error) {
	if s == "" {
		return 0, errEmpty
	}
	var v int64
	for k := 0; k < sections; k++ {
		dot := strings.LastIndexByte(s, '.')
		x, err := strconv.ParseInt(s[dot+1:], 10, 64)
		if err != nil {
			return 0, err
		}
		if x < 0 || x >= mul {
			return 0, errRange
		}
		v = v*mul + x
		if dot < 0 {
			return v, nil
		}
		s = s[:dot]
	}
	return 0, errSections
}
