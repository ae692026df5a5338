#!/bin/bash
# A/B on the emulated cluster: main (bf046a4, /work/r21/mainwt) against the
# regime-filtered views + the tenth guard (/work/main), same profile and
# calibration, gather and scatter, the sweep's settings, no balanced runs.
P=/work/r21/calib/profile.json
run() { # label tree coll
  echo "$1 $3 start $(date +%T)"
  (cd $2 && env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only -b $2/build -c $3 \
      --site-per-row -o /work/r21/ab/$1-$3 -d 10,50,200 -i 24 -x 3 --balanced-iterations 0 --trace) \
      > /work/r21/ab/$1-$3.log 2>&1
  echo "$1 $3 rc=$? $(date +%T)"
}
mkdir -p /work/r21/ab
run main /work/r21/mainwt gather
run new /work/main gather
run new /work/main scatter
run main /work/r21/mainwt scatter
