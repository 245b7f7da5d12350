module github.com/ddtlab/ddt

go 1.25
