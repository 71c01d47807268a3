// Prints expected.txt from patterns.txt with Go's own regexp package:
//   go run generate.go < patterns.txt > expected.txt
// Each line: the Go-quoted pattern, a tab, then "ok" and one 0/1 per
// subject (MatchString), or "error" and the regexp/syntax message without
// its "error parsing regexp: " prefix. The subjects are the test's
// kSubjects (tests/stat_go_regex_test.cpp), in order.
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"regexp/syntax"
	"strconv"
)

var subjects = []string{
	"", "abc", "ABC", "aaa", "ab", "a{2}", "a{", "x]y", "x-y", "a^b", "a$b", "[", "\\", "{}",
	"tab\there", "Copy/size=4k", "size=64k", "Zero_nt-4", "BenchmarkFoo", "foo bar", "a.b", "a+b",
	"12345", "_x_", "\xc3\xa9", "A\xc3\xa9", "(x)", "a|b", "?*", "a\x00b", "a\nb", "\xce\xb1\xce\xb2",
	"C", "a\\Cb", "\\Q.\\E",
}

func main() {
	fmt.Println("# Go " + "regexp results for tests/stat_go_regex_test.cpp, written by generate.go")
	fmt.Println("# from patterns.txt (Go 1.19: go run generate.go < patterns.txt > expected.txt).")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		pattern, err := strconv.Unquote(in.Text())
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad line:", in.Text())
			os.Exit(2)
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			e := err.(*syntax.Error)
			fmt.Printf("%q\terror\t%s: `%s`\n", pattern, e.Code, e.Expr)
			continue
		}
		bits := make([]byte, len(subjects))
		for i, s := range subjects {
			bits[i] = '0'
			if re.MatchString(s) {
				bits[i] = '1'
			}
		}
		fmt.Printf("%q\tok\t%s\n", pattern, bits)
	}
}
