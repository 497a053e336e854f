module github.com/mkpoe/mkpoe

go 1.24.0

require (
	github.com/sbinet/npyio v0.6.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
)
