// Package ssd simulates a flash SSD, sim:ssd, in the virtual time of a
// sim.Loop: for traces recorded on flash, where the disk model of sim/hdd
// (one head, seeks, rotation) does not apply.
//
// The drive is Channels flash channels (buses), each shared by
// DiesPerChannel dies; a die is the unit that reads or programs one page at
// a time. The defaults are those of MQSim's ssdconfig.xml (see Params).
// The model is deliberately simple and entirely deterministic:
//
//   - Static striping, no FTL: logical page p (of PageSize bytes; sector s
//     is in page s / (PageSize/512)) lives on channel p mod Channels and on
//     die (p / Channels) mod DiesPerChannel of that channel, always. Writes
//     go to the die the stripe gives, in place: there is no mapping table,
//     no garbage collection, no erase, no write amplification and no wear
//     levelling. There is no write cache either (a write completes when
//     its pages are programmed, so a flush has nothing to wait for) and no
//     read cache.
//   - A request is split into page operations, one for each page it
//     touches, in page order. A page operation moves only the bytes the
//     request covers in that page over the channel (as MQSim's transactions
//     carry Data_and_metadata_size_in_byte, the bytes of the page the
//     request touches), but it always costs the die a whole page read or
//     program: a 4 KiB write into an 8 KiB page programs the page (there is
//     no read-modify-write, since nothing else lives there).
//   - A read occupies its die for the array read (ReadLatency) and then
//     until its data has crossed the channel: the page register holds it
//     until then, so the die cannot start another operation (no cache
//     read). The transfer takes the channel for bytes/ChannelRate and can
//     start only once the array read is done.
//   - A write first moves its data over the channel into the die's page
//     register (so the die must be free) and then programs the page
//     (ProgramLatency); the die is busy from the start of the transfer to
//     the end of the program.
//   - Every command costs CommandOverhead first (the controller taking and
//     decoding it); its page operations start no earlier than that. The
//     overhead is latency, not a resource: commands are decoded in
//     parallel. Flushes and discards cost only the overhead.
//   - The request completes when its last page operation does: the end of
//     the last transfer of a read, of the last program of a write.
//   - Scheduling is greedy and in a fixed order: requests in arrival order,
//     the pages of a request in page order, and each page operation as
//     early as its die and channel allow. A die serves its operations in
//     that order (it keeps one "free at" time). A channel keeps the list of
//     intervals during which it is reserved, and a transfer takes the
//     earliest gap long enough for it: a transfer from a die that finished
//     its array read early need not wait behind one from a busy die that
//     was scheduled before it.
//   - Planes are not modelled (no multi-plane operations), nor is the host
//     link: MQSim's ssdconfig.xml gives it 4 PCIe lanes of 1 GB/s, more
//     than the eight channels together carry (2.66 GB/s).
//
// Transfer times are rounded up to the ns, from a table computed once, so
// all arithmetic at run time is in integers.
package ssd
