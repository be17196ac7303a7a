#!/bin/bash
# Chip model 4, the TSO retransmit storm (the RTL8126 report: ~67% retransmits with TSO on,
# cured by TSO off): 30% of the TSO super-packets reaching the receiver are lost, nothing
# else is. A new connection with TSO on retransmits >= 5% of its segments; with TSO off
# (software GSO hands veth single frames) the model loses nothing and the retransmits that
# were not spurious stay under 0.5% of the segments (what veth's own backlog drops cost
# here); with the model off, TSO on is as clean. Spurious: the receiver reported the
# segment twice (DSACK; docs/tuning.md "Spurious retransmits are not loss"): veth reorders,
# and on the 2-core test machine that alone retransmitted 0.2-0.65% of a flow's segments,
# 90-95% of them DSACKed (2026-12-04: all retransmits 0-6456 per million, those not
# DSACKed 0-570, with the model on and TSO on 270000-340000). Counts are the connection's
# own (TCP_INFO); losses the model's.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/chipmodel-lib.sh"

FRACTION=${CM_TSO_DROP:-0.3}
cm_pair
cm_serve

# run LABEL STREAMS: STREAMS one-second connections. The lost fraction needs two (about
# 380 TSO skbs: 0.1 is 4 standard deviations); a rate of a million segments needs one.
run() {
	local d0 g0
	d0=$(cm_stat tso_drop_skbs) g0=$(cm_stat gso_skbs)
	cm_best 1 "$2"
	DROPS=$(($(cm_stat tso_drop_skbs) - d0)) GSO=$(($(cm_stat gso_skbs) - g0))
	t_log "$1: $CM_GBIT Gbit/s, $CM_RETRANS retransmits ($CM_DSACK spurious) in $CM_SEGS" \
		"segments ($CM_PPM per million, $CM_LOSS_PPM not spurious), $DROPS of $GSO TSO skbs lost"
}

cm_ensure
run "model off, TSO on" 1
t_le "$CM_LOSS_PPM" 5000 "retransmits per million that were not spurious, model off"

cm_tso_storm "$FRACTION"
run "model on ($FRACTION), TSO on" 2
t_ge "$CM_LOSS_PPM" 50000 "retransmits per million that were not spurious, with TSO on"
t_ge "$DROPS" 10 "TSO skbs lost"
lo=$(awk -v f="$FRACTION" -v g="$GSO" 'BEGIN { printf "%d", (f - 0.1) * g }')
hi=$(awk -v f="$FRACTION" -v g="$GSO" 'BEGIN { printf "%d", (f + 0.1) * g + 1 }')
t_ge "$DROPS" "$lo" "lost TSO skbs vs $FRACTION of $GSO - 0.1"
t_le "$DROPS" "$hi" "lost TSO skbs vs $FRACTION of $GSO + 0.1"

cm_sender_offload off on
run "model on ($FRACTION), TSO off" 1
t_eq "$DROPS" 0 "skbs lost with TSO off (none is a TSO super-packet)"
t_eq "$GSO" 0 "GSO skbs reaching vb with TSO off"
t_le "$CM_LOSS_PPM" 5000 "retransmits per million that were not spurious, with TSO off"
