module github.com/bbdigest/bbdigest/hashing/_asm

go 1.26
