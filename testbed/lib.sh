# testbed/lib.sh — build and tear down papcoll's emulated Ethernet cluster.
# Sourced by testbed/run; needs root, bash, iproute2 (ip, tc).
#
# Layout of one run (PREFIX = papc-<pid of testbed/run>):
#
#   namespace PREFIX-sw   the switch: bridge br0 with ports h0 … h<N-1>
#   namespace PREFIX-<i>  host i: lo, eth0 = 10.77.0.<i+1>/24 (veth, peer h<i>)
#
# Both ends of every veth are created directly inside their namespaces, so
# nothing (no link, no address, no bridge) ever appears in the root namespace,
# and concurrent runs (different PREFIX) never collide, even though they all
# use the same subnet (each run's subnet lives in its own namespaces).
#
# Each direction of each host's link is shaped by tc tbf at the link rate:
#   host i → switch : egress of eth0 in PREFIX-<i>   (the NIC's transmit side)
#   switch → host i : egress of h<i> in PREFIX-sw    (the switch's output port,
#                     so 7 senders → 1 receiver are limited by the receiver's
#                     link, with a switch-sized buffer in front of it)
# A fixed one-way delay is added with netem on eth0's egress when the kernel
# has netem (it does not here: see DEVELOPERS.md).

TB_SUBNET=10.77.0          # host i has TB_SUBNET.(i+1)
TB_MASK=24
TB_PREFIX_RE='^papc-[0-9]+-'

tb_log() { [ "${TB_VERBOSE:-0}" = 1 ] && echo "testbed: $*" >&2; return 0; }
tb_warn() { echo "testbed: $*" >&2; }

# tb_ns_names PREFIX N — the namespaces of one run, switch first.
tb_ns_names() {
    local p=$1 n=$2 i
    echo "$p-sw"
    for ((i = 0; i < n; i++)); do echo "$p-$i"; done
}

# tb_kill_ns NS — kill every process inside namespace NS (TERM, then KILL).
tb_kill_ns() {
    local ns=$1 pids t
    for t in 1 2 3 4 5 6 7 8 9 10; do
        pids=$(ip netns pids "$ns" 2>/dev/null) || return 0
        [ -z "$pids" ] && return 0
        if [ "$t" -le 5 ]; then kill -TERM $pids 2>/dev/null
        else kill -KILL $pids 2>/dev/null; fi
        sleep 0.2
    done
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && tb_warn "processes still alive in $ns: $pids"
    return 0
}

# tb_destroy PREFIX — kill the processes of every namespace of PREFIX and
# delete the namespaces (links and the bridge go with them). Idempotent.
tb_destroy() {
    local p=$1 ns list
    list=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$p-(sw|[0-9]+)\$")
    [ -z "$list" ] && return 0
    # hosts first (mpirun lives in host 0), then the switch
    for ns in $list; do tb_kill_ns "$ns"; done
    for ns in $list; do
        ip netns del "$ns" 2>/dev/null || tb_warn "could not delete namespace $ns"
    done
}

# tb_shape NS DEV RATE LIMIT_BYTES BURST_BYTES DELAY
# tbf at RATE; with DELAY != 0 and netem available, netem DELAY as the root
# and tbf below it. Returns 2 when the delay could not be applied.
tb_shape() {
    local ns=$1 dev=$2 rate=$3 limit=$4 burst=$5 delay=$6 rc=0
    if [ -n "$delay" ] && [ "$delay" != 0 ] && [ "$delay" != 0us ]; then
        if ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: \
                netem delay "$delay" limit 100000 2>/dev/null; then
            ip netns exec "$ns" tc qdisc add dev "$dev" parent 1: handle 2: \
                tbf rate "$rate" burst "$burst" limit "$limit" || return 1
            return 0
        fi
        rc=2
    fi
    ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: \
        tbf rate "$rate" burst "$burst" limit "$limit" || return 1
    return $rc
}

# tb_create PREFIX N RATE DELAY SWITCH_QUEUE_BYTES BURST_BYTES
# Sets TB_DELAY_APPLIED=1|0. Returns non-zero on failure (the caller's trap
# cleans up whatever was made).
# tb_allow_cc ALG — a namespace other than the first may only choose a
# congestion control the machine lists as allowed (the kernel answers EPERM
# otherwise, even to root): add ALG to that list if it is available.
tb_allow_cc() {
    local allowed
    allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
    case " $allowed " in *" $1 "*) return 0 ;; esac
    sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed $1" 2>/dev/null
}

tb_create() {
    local p=$1 n=$2 rate=$3 delay=$4 swq=$5 burst=$6 i h rc
    local sw="$p-sw" hostq=8000000
    TB_DELAY_APPLIED=1
    [ "$delay" = 0 ] && TB_DELAY_APPLIED=0
    ip netns add "$sw" || return 1
    ip -n "$sw" link set lo up || return 1
    ip -n "$sw" link add br0 type bridge stp_state 0 forward_delay 0 || return 1
    ip -n "$sw" link set br0 up || return 1
    for ((i = 0; i < n; i++)); do
        h="$p-$i"
        ip netns add "$h" || return 1
        ip -n "$h" link set lo up || return 1
        ip netns exec "$h" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 || return 1
        if [ -n "${TB_CC:-}" ]; then
            tb_allow_cc "$TB_CC"
            ip netns exec "$h" sysctl -qw net.ipv4.tcp_congestion_control="$TB_CC" || {
                echo "testbed: congestion control '$TB_CC' is not available here" \
                     "(net.ipv4.tcp_available_congestion_control)" >&2; return 1; }
        fi
        ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
        ip netns exec "$h" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
        ip -n "$h" link add eth0 type veth peer name "h$i" netns "$sw" || return 1
        ip -n "$sw" link set "h$i" master br0 || return 1
        ip -n "$sw" link set "h$i" up || return 1
        ip -n "$h" addr add "$TB_SUBNET.$((i + 1))/$TB_MASK" dev eth0 || return 1
        ip -n "$h" link set eth0 up || return 1
        tb_shape "$h" eth0 "$rate" "$hostq" "$burst" "$delay"; rc=$?
        if [ $rc = 2 ]; then TB_DELAY_APPLIED=0; elif [ $rc != 0 ]; then return 1; fi
        tb_shape "$sw" "h$i" "$rate" "$swq" "$burst" 0 || return 1
    done
    # wait until every host answers (bridge ports forward at once: STP off)
    for ((i = 1; i < n; i++)); do
        # no ping on a minimal Debian: a TCP connect to a closed port is
        # refused at once when the host is reachable, times out when not
        ip netns exec "$p-0" timeout 3 bash -c \
            "exec 3<>/dev/tcp/$TB_SUBNET.$((i + 1))/9" >/dev/null 2>&1
        [ $? = 124 ] && { tb_warn "host $i ($TB_SUBNET.$((i + 1))) is unreachable"; return 1; }
    done
    return 0
}

# tb_leftovers — namespaces of papcoll testbed runs whose testbed/run is gone.
tb_leftovers() {
    local ns pid
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "$TB_PREFIX_RE"); do
        pid=${ns#papc-}; pid=${pid%%-*}
        # its run is alive when that pid is still a "run" script (comm is the
        # script's name when started by its #! line; else look at argv)
        if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = run ] ||
           { [ -r "/proc/$pid/cmdline" ] &&
             tr '\0' ' ' <"/proc/$pid/cmdline" | grep -Eq '(^|[ /])run( |$)'; }; then
            continue
        fi
        echo "$ns"
    done
}

# tb_stats PREFIX N — one line per link direction: bytes, packets, drops,
# overlimits of its tbf, and per host its TCP retransmission counters
# (printed by testbed/run -v before teardown).
tb_stats() {
    local p=$1 n=$2 i
    [ -e "/var/run/netns/$p-sw" ] || return 0
    for ((i = 0; i < n; i++)); do
        [ -e "/var/run/netns/$p-$i" ] || continue
        printf 'testbed: host %d  out: %s\n' "$i" "$(ip netns exec "$p-$i" tc -s qdisc show dev eth0 |
            awk '/tbf/{t=1} t && /Sent/{print $2" B "$4" pkt dropped "$7" overlimits "$9; exit}')" >&2
        printf 'testbed: host %d   in: %s\n' "$i" "$(ip netns exec "$p-sw" tc -s qdisc show dev "h$i" |
            awk '/tbf/{t=1} t && /Sent/{print $2" B "$4" pkt dropped "$7" overlimits "$9; exit}')" >&2
        # TCP's own view: a retransmission timeout stalls a connection for
        # at least 200 ms (doubling on each repeat), a SYN retry for 1 s.
        printf 'testbed: host %d  tcp: %s\n' "$i" "$(ip netns exec "$p-$i" nstat -az 2>/dev/null |
            awk '$1 ~ /^(TcpRetransSegs|TcpExtTCPTimeouts|TcpExtTCPLostRetransmit|TcpExtTCPSynRetrans|TcpExtTCPFastRetrans|TcpExtListenDrops)$/ {printf "%s=%s ", $1, $2}')" >&2
    done
}
