package plan

// ReasonJSON is a reason as kiln's JSON views write it (plan -json, kiln
// diff -json): its fields and, as message, the sentence the text views
// print.
type ReasonJSON struct {
	Reason
	Message string `json:"message"`
}

// JSON is r with its message.
func (r Reason) JSON() ReasonJSON { return ReasonJSON{Reason: r, Message: r.String()} }
