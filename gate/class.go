package gate

import (
	"errors"
	"fmt"

	"github.com/bbdigest/bbdigest/receipt"
)

// Class is a tool's consequence class: how much harm its effect can do, and
// so whether the gate lets a call through on policy alone or only with
// authority. Classes are ordered: ReadOnly < Ordinary < Financial <
// Physical < NetworkControl. Unconfigured, the class of a tool the policy
// does not name, ranks above them all: such a call needs authority whatever
// the threshold.
type Class uint8

const (
	// ReadOnly tools observe and change nothing (a search, a lookup).
	ReadOnly Class = iota + 1
	// Ordinary tools change state that is cheap to undo (a draft, a note).
	Ordinary
	// Financial tools move money or commit to pay (a payment, a booking).
	Financial
	// Physical tools act on the physical world (an actuator, a device).
	Physical
	// NetworkControl tools change what systems can reach each other
	// (firewall rules, routing, access grants).
	NetworkControl
	// Unconfigured is the class of a tool the policy does not name. It is
	// not a class a policy can give a tool.
	Unconfigured Class = 255
)

// classNames are the classes' names. Package receipt owns them: they are
// the values of a receipt's consequence_class, which its verifier checks.
var classNames = [...]string{
	ReadOnly:       receipt.ClassReadOnly,
	Ordinary:       receipt.ClassOrdinary,
	Financial:      receipt.ClassFinancial,
	Physical:       receipt.ClassPhysical,
	NetworkControl: receipt.ClassNetworkControl,
}

// String returns the class's stable name, as receipts carry it (package
// receipt's Class constants): "READ_ONLY", "ORDINARY", "FINANCIAL",
// "PHYSICAL", "NETWORK_CONTROL" or "UNCONFIGURED".
func (c Class) String() string {
	if c == Unconfigured {
		return receipt.ClassUnconfigured
	}
	if c.valid() {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// valid reports whether c is a class a policy can give a tool.
func (c Class) valid() bool { return c >= ReadOnly && c <= NetworkControl }

// ParseClass returns the class named name (one of the names String returns,
// other than "UNCONFIGURED").
func ParseClass(name string) (Class, error) {
	c, ok := lookupClass(name)
	if !ok {
		return 0, errors.New("gate: " + unknownClass(name))
	}
	return c, nil
}

// lookupClass returns the class named name, a class a policy can give.
func lookupClass(name string) (Class, bool) {
	for c := ReadOnly; c <= NetworkControl; c++ {
		if classNames[c] == name {
			return c, true
		}
	}
	return 0, false
}

// unknownClass is why name is no class: the message of ParseClass, and
// the reason of a policy's *PolicyError at the member that names it.
func unknownClass(name string) string {
	return fmt.Sprintf("unknown consequence class %q (want %s, %s, %s, %s or %s)", name,
		classNames[ReadOnly], classNames[Ordinary], classNames[Financial], classNames[Physical], classNames[NetworkControl])
}

// MarshalText returns the class's name.
func (c Class) MarshalText() ([]byte, error) {
	if !c.valid() && c != Unconfigured {
		return nil, fmt.Errorf("gate: invalid consequence class %d", uint8(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText sets c to the class named by text.
func (c *Class) UnmarshalText(text []byte) error {
	v, err := ParseClass(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
