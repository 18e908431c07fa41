// Command bbdigest canonicalizes JSON with RFC 8785 (JCS) and prints the
// SHA-256 digest of the canonical bytes as "sha256:" followed by 64
// lowercase hexadecimal characters, the envelope digest of
// draft-morrison-binding-moment-envelope-04 §6.2.
//
// Run "bbdigest help" for the commands, options and exit codes.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
