module github.com/meerkat-ids/meerkat

go 1.26

require (
	github.com/dlclark/regexp2/v2 v2.13.0
	github.com/flier/gohs v1.2.2
	github.com/gaissmai/bart v0.30.0
	github.com/gopacket/gopacket v1.7.7
	github.com/yl2chen/cidranger v1.0.2
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
