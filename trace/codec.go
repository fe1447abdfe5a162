package trace

import "encoding/binary"

// The byte offsets of the fields of struct blk_io_trace.
const (
	offMagic    = 0
	offSequence = 4
	offTime     = 8
	offSector   = 16
	offBytes    = 24
	offAction   = 28
	offPID      = 32
	offDevice   = 36
	offCPU      = 40
	offError    = 44
	offPDULen   = 46
)

// AppendRecord appends r, header and payload, to b in the given byte order
// and returns the extended slice. The magic word is Magic|r.Version
// (Version if r.Version is 0); pdu_len is len(r.PDU), which must fit in 16
// bits.
func AppendRecord(b []byte, r *Record, order binary.ByteOrder) []byte {
	v := r.Version
	if v == 0 {
		v = Version
	}
	var h [RecordSize]byte
	order.PutUint32(h[offMagic:], Magic|uint32(v))
	order.PutUint32(h[offSequence:], r.Sequence)
	order.PutUint64(h[offTime:], r.Time)
	order.PutUint64(h[offSector:], r.Sector)
	order.PutUint32(h[offBytes:], r.Bytes)
	order.PutUint32(h[offAction:], r.Action)
	order.PutUint32(h[offPID:], r.PID)
	order.PutUint32(h[offDevice:], uint32(r.Device))
	order.PutUint32(h[offCPU:], r.CPU)
	order.PutUint16(h[offError:], r.Error)
	order.PutUint16(h[offPDULen:], uint16(len(r.PDU)))
	b = append(b, h[:]...)
	return append(b, r.PDU...)
}

// decodeHeader fills r from a 48-byte header and returns pdu_len.
func decodeHeader(h []byte, order binary.ByteOrder, r *Record) int {
	_ = h[RecordSize-1]
	r.Version = uint8(order.Uint32(h[offMagic:]))
	r.Sequence = order.Uint32(h[offSequence:])
	r.Time = order.Uint64(h[offTime:])
	r.Sector = order.Uint64(h[offSector:])
	r.Bytes = order.Uint32(h[offBytes:])
	r.Action = order.Uint32(h[offAction:])
	r.PID = order.Uint32(h[offPID:])
	r.Device = Dev(order.Uint32(h[offDevice:]))
	r.CPU = order.Uint32(h[offCPU:])
	r.Error = order.Uint16(h[offError:])
	return int(order.Uint16(h[offPDULen:]))
}
