package fio

import (
	"errors"
	"math"
	"strings"
)

// Arithmetic in option values: fio accepts "(expr)" anywhere a number is
// expected. Integers only here, with + - * / % ^ (power), unary minus and
// parentheses; every literal may carry the unit its option takes (4k in a
// size, 10ms in a time). All operations are checked for overflow.

// maxExprDepth bounds nesting so hostile input cannot exhaust the stack.
const maxExprDepth = 64

// unitFunc converts one literal's digits and unit suffix to the option's
// base unit (bytes, nanoseconds, ...).
type unitFunc func(n int64, unit string) (int64, error)

var (
	errOverflow = errors.New("value out of range")
	errDivZero  = errors.New("division by zero")
)

type exprParser struct {
	s     string
	pos   int
	depth int
	unit  unitFunc
}

// evalExpr evaluates s, which must be a parenthesised expression.
func evalExpr(s string, unit unitFunc) (int64, error) {
	p := &exprParser{s: s, unit: unit}
	p.skipSpace()
	if p.pos >= len(p.s) || p.s[p.pos] != '(' {
		return 0, errors.New("expression must be in parentheses")
	}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return 0, errors.New("unexpected " + quoteRest(p.s[p.pos:]) + " after expression")
	}
	return v, nil
}

func quoteRest(s string) string {
	if len(s) > 16 {
		s = s[:16] + "..."
	}
	return "\"" + s + "\""
}

func (p *exprParser) skipSpace() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *exprParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

// expr := term {('+'|'-') term}
func (p *exprParser) expr() (int64, error) {
	v, err := p.term()
	if err != nil {
		return 0, err
	}
	for {
		switch p.peek() {
		case '+':
			p.pos++
			w, err := p.term()
			if err != nil {
				return 0, err
			}
			if v, err = addChecked(v, w); err != nil {
				return 0, err
			}
		case '-':
			p.pos++
			w, err := p.term()
			if err != nil {
				return 0, err
			}
			if w == math.MinInt64 {
				return 0, errOverflow
			}
			if v, err = addChecked(v, -w); err != nil {
				return 0, err
			}
		default:
			return v, nil
		}
	}
}

// term := power {('*'|'/'|'%') power}
func (p *exprParser) term() (int64, error) {
	v, err := p.power()
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			return v, nil
		}
		p.pos++
		w, err := p.power()
		if err != nil {
			return 0, err
		}
		switch op {
		case '*':
			v, err = mulChecked(v, w)
		case '/', '%':
			if w == 0 {
				return 0, errDivZero
			}
			if v == math.MinInt64 && w == -1 {
				return 0, errOverflow
			}
			if op == '/' {
				v /= w
			} else {
				v %= w
			}
		}
		if err != nil {
			return 0, err
		}
	}
}

// power := unary ['^' power]   (right-associative)
func (p *exprParser) power() (int64, error) {
	base, err := p.unary()
	if err != nil {
		return 0, err
	}
	if p.peek() != '^' {
		return base, nil
	}
	p.pos++
	if err := p.enter(); err != nil {
		return 0, err
	}
	exp, err := p.power()
	p.depth--
	if err != nil {
		return 0, err
	}
	return powChecked(base, exp)
}

// unary := ('-'|'+') unary | primary
func (p *exprParser) unary() (int64, error) {
	switch p.peek() {
	case '-', '+':
		neg := p.s[p.pos] == '-'
		p.pos++
		if err := p.enter(); err != nil {
			return 0, err
		}
		v, err := p.unary()
		p.depth--
		if err != nil {
			return 0, err
		}
		if neg {
			if v == math.MinInt64 {
				return 0, errOverflow
			}
			v = -v
		}
		return v, nil
	}
	return p.primary()
}

// primary := '(' expr ')' | literal
func (p *exprParser) primary() (int64, error) {
	c := p.peek()
	if c == '(' {
		p.pos++
		if err := p.enter(); err != nil {
			return 0, err
		}
		v, err := p.expr()
		p.depth--
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, errors.New("missing ')'")
		}
		p.pos++
		return v, nil
	}
	return p.literal()
}

func (p *exprParser) enter() error {
	p.depth++
	if p.depth > maxExprDepth {
		return errors.New("expression nested too deeply")
	}
	return nil
}

// literal := digits [unit] | 0x hexdigits [unit]
func (p *exprParser) literal() (int64, error) {
	p.skipSpace()
	start := p.pos
	hex := strings.HasPrefix(p.s[p.pos:], "0x") || strings.HasPrefix(p.s[p.pos:], "0X")
	if hex {
		p.pos += 2
	}
	digStart := p.pos
	for p.pos < len(p.s) && (isDigit(p.s[p.pos]) || hex && isHexDigit(p.s[p.pos])) {
		p.pos++
	}
	if p.pos == digStart {
		if p.pos >= len(p.s) {
			return 0, errors.New("expression ends early")
		}
		return 0, errors.New("unexpected " + quoteRest(p.s[start:]))
	}
	digits := p.s[digStart:p.pos]
	uStart := p.pos
	for p.pos < len(p.s) && isLetter(p.s[p.pos]) {
		p.pos++
	}
	n, err := parseDigits(digits, hex)
	if err != nil {
		return 0, err
	}
	return p.unit(n, p.s[uStart:p.pos])
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isLetter(c byte) bool   { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func addChecked(a, b int64) (int64, error) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, errOverflow
	}
	return s, nil
}

func mulChecked(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, errOverflow
	}
	p := a * b
	if p/b != a {
		return 0, errOverflow
	}
	return p, nil
}

func powChecked(base, exp int64) (int64, error) {
	if exp < 0 {
		return 0, errors.New("negative exponent")
	}
	r := int64(1)
	for i := int64(0); i < exp; i++ {
		var err error
		if r, err = mulChecked(r, base); err != nil {
			return 0, err
		}
		// 0, 1 and -1 never overflow: stop early instead of looping to exp.
		if r == 0 || r == 1 || (r == -1 && base == -1) {
			if base == -1 && (exp-i-1)%2 == 1 {
				r = -r
			}
			return r, nil
		}
	}
	return r, nil
}
