package cert

// parseTime is x509-parser's ASN1Time::from_der (time.rs: parse_choice_of_time): a UTCTime
// (asn1-rs UtcTime::from_bytes: YYMMDDhhmm[ss](Z|+hhmm|-hhmm), year 50..99 -> 19YY else 20YY)
// or a GeneralizedTime (YYYYMMDDhhmm[ss][.f{1,3}] ending in 'Z' as DER requires, no ','), else
// failure (parse_malformed_date accepts nothing). It returns the Unix time of the instant.
func parseTime(b []byte) (int64, []byte, bool) {
	t, rest, e := readTLV(b)
	if e != tlvOK {
		return 0, nil, false
	}
	var v int64
	var ok bool
	switch t.tag {
	case tagUTCTime:
		v, ok = parseUTCTime(t.data)
	case tagGenTime:
		v, ok = parseGeneralizedTime(t.data)
	}
	return v, rest, ok
}

func dec2(a, b byte) (int, bool) {
	if a < '0' || a > '9' || b < '0' || b > '9' {
		return 0, false
	}
	return int(a-'0')*10 + int(b-'0'), true
}

type dateTime struct {
	year, month, day, hour, minute, second int
	offset                                 int // seconds east of UTC
}

// parseClock reads MMDDhhmm[ss] after the year; rem is what follows.
func parseClock(b []byte, dt *dateTime) (rem []byte, ok bool) {
	if len(b) < 8 {
		return nil, false
	}
	var ok1, ok2, ok3, ok4 bool
	dt.month, ok1 = dec2(b[0], b[1])
	dt.day, ok2 = dec2(b[2], b[3])
	dt.hour, ok3 = dec2(b[4], b[5])
	dt.minute, ok4 = dec2(b[6], b[7])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, false
	}
	rem = b[8:]
	if len(rem) == 0 {
		return nil, false
	}
	if len(rem) >= 2 {
		s, ok := dec2(rem[0], rem[1])
		if !ok {
			return nil, false
		}
		dt.second = s
		rem = rem[2:]
	}
	if dt.month > 12 || dt.day > 31 || dt.hour > 23 || dt.minute > 59 || dt.second > 59 {
		return nil, false
	}
	return rem, true
}

// parseZone reads Z or +hhmm / -hhmm (the whole remainder).
func parseZone(rem []byte, dt *dateTime) bool {
	switch {
	case len(rem) == 1 && rem[0] == 'Z':
		return true
	case len(rem) == 5 && (rem[0] == '+' || rem[0] == '-'):
		hh, ok1 := dec2(rem[1], rem[2])
		mm, ok2 := dec2(rem[3], rem[4])
		if !ok1 || !ok2 || hh > 25 || mm > 59 { // time::UtcOffset::from_hms ranges
			return false
		}
		dt.offset = hh*3600 + mm*60
		if rem[0] == '-' {
			dt.offset = -dt.offset
		}
		return true
	}
	return false
}

func parseUTCTime(b []byte) (int64, bool) {
	if len(b) < 2 {
		return 0, false
	}
	var dt dateTime
	yy, ok := dec2(b[0], b[1])
	if !ok {
		return 0, false
	}
	rem, ok := parseClock(b[2:], &dt)
	if !ok || !parseZone(rem, &dt) {
		return 0, false
	}
	// The date is validated with the two-digit year first (ASN1DateTime::to_datetime), then with
	// the adjusted one (UtcTime::utc_adjusted_datetime); both have the same leap years.
	if yy >= 50 {
		dt.year = 1900 + yy
	} else {
		dt.year = 2000 + yy
	}
	return dt.unix()
}

func parseGeneralizedTime(b []byte) (int64, bool) {
	// DER constraints (CheckDerConstraints for GeneralizedTime): ends with 'Z', no ','.
	if len(b) == 0 || b[len(b)-1] != 'Z' {
		return 0, false
	}
	for _, c := range b {
		if c == ',' {
			return 0, false
		}
	}
	if len(b) < 4 {
		return 0, false
	}
	var dt dateTime
	hi, ok1 := dec2(b[0], b[1])
	lo, ok2 := dec2(b[2], b[3])
	if !ok1 || !ok2 {
		return 0, false
	}
	dt.year = hi*100 + lo
	rem, ok := parseClock(b[4:], &dt)
	if !ok {
		return 0, false
	}
	if len(rem) > 0 && rem[0] == '.' { // fraction: 1 to 3 digits (asn1-rs; milliseconds dropped)
		rem = rem[1:]
		n := 0
		for n < len(rem) && rem[n] >= '0' && rem[n] <= '9' {
			n++
		}
		if n == 0 || n > 3 {
			return 0, false
		}
		rem = rem[n:]
	}
	if !parseZone(rem, &dt) {
		return 0, false
	}
	return dt.unix()
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var monthDays = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// unix validates the calendar date (time::Date::from_calendar_date) and converts to Unix seconds.
func (dt *dateTime) unix() (int64, bool) {
	if dt.month < 1 || dt.day < 1 {
		return 0, false
	}
	md := monthDays[dt.month]
	if dt.month == 2 && isLeap(dt.year) {
		md = 29
	}
	if dt.day > md {
		return 0, false
	}
	days := daysFromCivil(dt.year, dt.month, dt.day)
	return days*86400 + int64(dt.hour*3600+dt.minute*60+dt.second-dt.offset), true
}

// daysFromCivil is the number of days from 1970-01-01 (proleptic Gregorian).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
