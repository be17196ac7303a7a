#!/bin/bash
# Chip model 3, burst losses (the i.MX6 fec seed: TCP collapses under big GSO bursts, TSO off
# or gso_max_size 16384 recovers): an RX ring of 64 frames drained at one frame per 500 ns
# loses the frames of a burst that find it full. With 64K GSO skbs (45 frames each, back to
# back) a new connection's rate falls >= 1.5x below the same with gso_max_size 16384 and with
# TSO off; its retransmits that were not spurious (not DSACKed: docs/tuning.md) are >= 1%
# of its segments and >= 10x TSO off's; with the model off 64K is no slower than 16K (the
# direction is the model's, not veth's). Best of 2 half-second streams each: the margins
# are wide (2026-12-04: model off 64K/16K 3.2-5.2; model on 16K/64K 36-103, TSO off/64K
# 42-318; not spurious per million: 64K 169000-282000, TSO off 0-153, while all of TSO
# off's retransmits, veth's reordering included, reach 6000 in a bad second).
# 16K's retransmit rate is not compared: at 16K TCP's window grows until back-to-back
# bursts overflow the ring too, and how far depends on the host's speed. On one machine it
# was a tenth of 64K's; on another (2026-12-02) 63-87 k per million with 13% of the frames
# lost at the ring, against 40-216 k for 64K, while 16K still ran 15-43x faster.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/chipmodel-lib.sh"

RING=${CM_RING:-64} DRAIN_NS=${CM_DRAIN_NS:-500}
cm_pair
cm_serve

# run LABEL: best of 2 half-second streams; sets RATE, PPM (retransmits per million
# segments), LOSS (those not spurious), LOST (frames the ring lost).
run() {
	local lost0
	lost0=$(cm_stat ring_drop_frames)
	cm_best 0.5 2
	RATE=$CM_GBIT PPM=$CM_PPM LOSS=$CM_LOSS_PPM LOST=$(($(cm_stat ring_drop_frames) - lost0))
	t_log "$1: $RATE Gbit/s, $PPM retransmits per million segments ($LOSS not spurious)," \
		"$LOST frames lost at the ring," \
		"gso_max_size $(t_ip_attr "$CM_NSA" va gso_max_size), tso $(t_feature "$CM_NSA" va tcp-segmentation-offload)"
}
gso() { ip -n "$CM_NSA" link set dev va gso_max_size "$1"; }

cm_ensure
run "model off, gso_max_size 65536"
off64=$RATE
gso 16384
run "model off, gso_max_size 16384"
off16=$RATE
cm_ge_ratio "$off64" "$off16" 0.8 "64K vs 16K GSO with the model off"

cm_burst_loss "$RING" "$DRAIN_NS"
gso 65536
run "ring $RING frames / $DRAIN_NS ns, gso_max_size 65536"
big=$RATE big_loss=$LOSS big_lost=$LOST
gso 16384
run "ring $RING frames / $DRAIN_NS ns, gso_max_size 16384"
small=$RATE small_loss=$LOSS
gso 65536
cm_sender_offload off on
run "ring $RING frames / $DRAIN_NS ns, TSO off"
tsooff=$RATE tsooff_loss=$LOSS
cm_sender_offload on on

t_ge "$big_lost" 1 "frames lost at the ring with 64K bursts"
# 64K bursts either collapse the flow (0.09 Gbit/s, 16K 37x faster) or leave it limping at
# 2.5 Gbit/s with 5% of its segments lost (16K 1.8x faster): seen both ways on one machine in
# one day, the outcome of TCP's recovery racing the ring. The chip's verdict holds both ways,
# for 16K and for TSO off alike (a fresh-root CI run, 2026-12-07: 64K 0.93 Gbit/s with 2298
# frames lost, TSO off 4.51, 4.8x: the limping mode, which a 5x bound failed).
cm_ge_ratio "$small" "$big" 1.5 "gso_max_size 16384 vs 65536 under the model"
cm_ge_ratio "$tsooff" "$big" 1.5 "TSO off vs on (gso_max_size 65536) under the model"
t_log "retransmits per million segments not spurious: 64K $big_loss, 16K $small_loss, TSO off $tsooff_loss"
t_ge "$big_loss" 10000 "retransmits not spurious per million with 64K bursts"
t_ge "$big_loss" $((10 * tsooff_loss)) "the same vs 10x TSO off's ($tsooff_loss)"
