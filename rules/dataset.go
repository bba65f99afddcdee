package rules

import (
	"strconv"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// Dataset is the parsed argument of dataset (DetectDatasetParse) and datarep
// (DetectDatarepParse).
type Dataset struct {
	// Rep is set for datarep.
	Rep bool
	// Cmd is the dataset command: set, unset, isset or isnotset; for datarep the operator
	// ">", "<" or "==".
	Cmd string
	// Name is the set's name.
	Name string
	// Type is the type as written: string, md5, sha256, ipv4, ip or ipv6 ("" when absent).
	Type string
	// Value is datarep's reputation operand.
	Value uint16
	// Load and Save are the files as written (state sets both).
	Load, Save string
	// Format is dataset's format (csv, json, ndjson; "" when absent).
	Format string
	// Memcap and Hashsize are 0 when absent or invalid (Suricata resets them to default).
	Memcap   uint64
	Hashsize uint32
	// JSON holds the json/ndjson option keys (value_key, array_key, context_key, remove_key).
	JSON bool
}

// splitDatasetKV splits one comma-separated token as both parsers do: leading blanks are
// skipped, the key ends at the first space and the value starts after the blanks that follow.
func splitDatasetKV(tok string) (key, val string, hasVal bool) {
	tok = strings.TrimLeft(tok, " \t")
	if i := strings.IndexByte(tok, ' '); i >= 0 {
		return tok[:i], strings.TrimLeft(tok[i+1:], " \t"), true
	}
	return tok, "", false
}

// datasetName trims trailing blanks and refuses blanks inside (both parsers).
func datasetName(name string) (string, error) {
	name = strings.TrimRight(name, " \t")
	if strings.ContainsAny(name, " \t") {
		return "", errf("spaces not allowed in dataset names")
	}
	return name, nil
}

// parseDatarep is DetectDatarepParse: "name,op,value[,type T][,load F][,memcap M][,hashsize H]".
func parseDatarep(arg string) (*Dataset, error) {
	d := &Dataset{Rep: true}
	nameSet, cmdSet, valueSet := false, false, false
	for _, tok := range strings.Split(arg, ",") {
		key, val, hasVal := splitDatasetKV(tok)
		if key == "" {
			continue
		}
		switch {
		case !nameSet:
			if hasVal {
				return nil, errf("invalid datarep argument \"%s\"", arg)
			}
			d.Name, nameSet = key, true
		case !cmdSet:
			if hasVal {
				return nil, errf("invalid datarep argument \"%s\"", arg)
			}
			d.Cmd, cmdSet = key, true
		case !valueSet:
			if hasVal {
				return nil, errf("invalid datarep argument \"%s\"", arg)
			}
			n, err := strconv.ParseUint(key, 10, 16)
			if err != nil {
				return nil, errf("invalid datarep value \"%s\"", key)
			}
			d.Value, valueSet = uint16(n), true
		default:
			if !hasVal {
				return nil, errf("invalid datarep argument \"%s\"", arg)
			}
			if err := d.option(key, val); err != nil {
				return nil, err
			}
		}
	}
	if d.Load != "" && d.Type == "" {
		return nil, errf("if load is used type must be set as well")
	}
	if !nameSet || !cmdSet || !valueSet {
		return nil, errf("missing values")
	}
	var err error
	if d.Name, err = datasetName(d.Name); err != nil {
		return nil, err
	}
	switch d.Cmd {
	case ">", "<", "==":
	default:
		return nil, errf("datarep operation \"%s\" is not supported.", d.Cmd)
	}
	return d, nil
}

// option handles the options both keywords share (type, load, memcap, hashsize).
func (d *Dataset) option(key, val string) error {
	switch key {
	case "type":
		switch val {
		case "md5", "sha256", "string", "ipv4", "ip", "ipv6":
			d.Type = val
		default:
			return errf("bad type %s", val)
		}
	case "load":
		d.Load = val
	case "memcap":
		if n, err := config.ParseSize(val); err == nil {
			d.Memcap = n
		}
	case "hashsize":
		if n, err := config.ParseSize(val); err == nil && n <= 0xffffffff {
			d.Hashsize = uint32(n)
		}
	}
	return nil
}

// parseDataset is DetectDatasetParse: "cmd,name[,type T][,load F|,save F|,state F]...".
func parseDataset(arg string) (*Dataset, error) {
	d := &Dataset{}
	cmdSet, nameSet := false, false
	loadSet, saveSet, stateSet, formatSet := false, false, false, false
	for _, tok := range strings.Split(arg, ",") {
		key, val, hasVal := splitDatasetKV(tok)
		if key == "" {
			continue
		}
		switch {
		case !cmdSet:
			if hasVal && val != "" {
				return nil, errf("invalid dataset argument \"%s\"", arg)
			}
			d.Cmd, cmdSet = key, true
		case !nameSet:
			if hasVal && val != "" {
				return nil, errf("invalid dataset argument \"%s\"", arg)
			}
			d.Name, nameSet = key, true
		case !hasVal:
			if key != "remove_key" {
				return nil, errf("invalid dataset argument \"%s\"", arg)
			}
			d.JSON = true
		default:
			switch key {
			case "save":
				if saveSet {
					return nil, errf("'save' can only appear once")
				}
				d.Save, saveSet = val, true
			case "load":
				if loadSet {
					return nil, errf("'load' can only appear once")
				}
				d.Load, loadSet = val, true
			case "state":
				if stateSet {
					return nil, errf("'state' can only appear once")
				}
				d.Load, d.Save, stateSet = val, val, true
			case "format":
				if formatSet {
					return nil, errf("'format' can only appear once")
				}
				switch val {
				case "csv", "json", "ndjson":
					d.Format = val
				default:
					return nil, errf("unknown format %s", val)
				}
				formatSet = true
			case "value_key", "array_key", "context_key":
				d.JSON = true
			default:
				if err := d.option(key, val); err != nil {
					return nil, err
				}
			}
		}
	}
	if (loadSet || saveSet) && stateSet {
		return nil, errf("'state' can not be mixed with 'load' and 'save'")
	}
	if !cmdSet || !nameSet {
		return nil, errf("invalid dataset argument \"%s\"", arg)
	}
	var err error
	if d.Name, err = datasetName(d.Name); err != nil {
		return nil, err
	}
	switch d.Cmd {
	case "set", "unset", "isset", "isnotset":
	default:
		return nil, errf("invalid dataset command \"%s\"", d.Cmd)
	}
	return d, nil
}
