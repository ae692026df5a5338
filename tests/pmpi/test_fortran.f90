! test_fortran.f90 — a Fortran program (`use mpi`) calling the seven
! collectives the drop-in layer serves: gather, scatter, bcast, reduce,
! allreduce, gatherv and scatterv, each exactly twice: once plainly (with a
! root other than 0 where the call has one) and once with MPI_IN_PLACE at
! root 0 (every rank for allreduce), except bcast, whose second call sends
! from MPI_BOTTOM through an absolute-address datatype; a third allreduce
! (in place, every rank) agrees on the verdict.  It checks every
! result, prints one PASS or FAIL line per rank and stops with status 1 on
! failure.  Run under the layer (or the counting shim of CMakeLists.txt)
! with LD_PRELOAD; P >= 2.
program test_fortran
  use mpi
  implicit none
  integer, parameter :: n = 4
  integer :: rank, nprocs, ierr, i, j, root, errors, total
  integer :: sbuf(n), rbuf(n), abs_type
  integer, allocatable :: big(:), counts(:), displs(:), expect(:), rv(:)
  integer(kind=MPI_ADDRESS_KIND) :: addr(1)
  integer :: blen(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  errors = 0
  allocate(big(n * nprocs), expect(n * nprocs), counts(nprocs), displs(nprocs))
  allocate(rv(nprocs))

  ! ---- gather: plain at the last rank, then in place at 0 ----
  root = nprocs - 1
  do i = 1, n
    sbuf(i) = 100 * rank + i
  end do
  do j = 0, nprocs - 1
    do i = 1, n
      expect(j * n + i) = 100 * j + i
    end do
  end do
  big = -1
  call MPI_Gather(sbuf, n, MPI_INTEGER, big, n, MPI_INTEGER, root, &
                  MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'gather ierror')
  if (rank == root) call check(all(big == expect), 'gather')
  if (rank == 0) then
    big = -1
    big(1:n) = sbuf                       ! root's own block already in place
    call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, big, n, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
    call check(all(big == expect), 'gather in place')
  else
    call MPI_Gather(sbuf, n, MPI_INTEGER, big, n, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'gather in place ierror')

  ! ---- scatter: plain at rank 1, then in place at 0 ----
  root = 1
  big = expect
  rbuf = -1
  call MPI_Scatter(big, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, root, &
                   MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(rbuf == expect(rank*n+1:rank*n+n)), &
             'scatter')
  rbuf = -1
  if (rank == 0) then
    call MPI_Scatter(big, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, ierr)
    call check(all(big == expect), 'scatter in place (root buffer)')
  else
    call MPI_Scatter(big, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, ierr)
    call check(all(rbuf == expect(rank*n+1:rank*n+n)), 'scatter in place')
  end if
  call check(ierr == MPI_SUCCESS, 'scatter in place ierror')

  ! ---- bcast: plain from the last rank, then from MPI_BOTTOM at 0 ----
  root = nprocs - 1
  rbuf = -1
  if (rank == root) rbuf = [(7 * i, i = 1, n)]
  call MPI_Bcast(rbuf, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(rbuf == [(7 * i, i = 1, n)]), 'bcast')
  rbuf = -1
  if (rank == 0) rbuf = [(11 * i, i = 1, n)]
  call MPI_Get_address(rbuf, addr(1), ierr)
  blen(1) = n
  call MPI_Type_create_hindexed(1, blen, addr, MPI_INTEGER, abs_type, ierr)
  call MPI_Type_commit(abs_type, ierr)
  call MPI_Bcast(MPI_BOTTOM, 1, abs_type, 0, MPI_COMM_WORLD, ierr)
  ! rbuf was written through its address, not as an argument: without this
  ! the compiler may keep its old values in registers (MPI-3.1 17.1.17)
  call MPI_F_sync_reg(rbuf)
  call check(ierr == MPI_SUCCESS .and. all(rbuf == [(11 * i, i = 1, n)]), &
             'bcast MPI_BOTTOM')
  call MPI_Type_free(abs_type, ierr)

  ! ---- reduce: plain at the last rank, then in place at 0 ----
  root = nprocs - 1
  do i = 1, n
    sbuf(i) = rank + i
    expect(i) = nprocs * (nprocs - 1) / 2 + nprocs * i
  end do
  rbuf = -1
  call MPI_Reduce(sbuf, rbuf, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'reduce ierror')
  if (rank == root) call check(all(rbuf == expect(1:n)), 'reduce')
  if (rank == 0) then
    rbuf = sbuf
    call MPI_Reduce(MPI_IN_PLACE, rbuf, n, MPI_INTEGER, MPI_SUM, 0, &
                    MPI_COMM_WORLD, ierr)
    call check(all(rbuf == expect(1:n)), 'reduce in place')
  else
    call MPI_Reduce(sbuf, rbuf, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'reduce in place ierror')

  ! ---- allreduce: plain, then in place everywhere ----
  rbuf = -1
  call MPI_Allreduce(sbuf, rbuf, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(rbuf == [(nprocs - 1 + i, i = 1, n)]), &
             'allreduce')
  rbuf = sbuf
  call MPI_Allreduce(MPI_IN_PLACE, rbuf, n, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(rbuf == expect(1:n)), &
             'allreduce in place')

  ! ---- gatherv: rank j sends j+1 integers, blocks in reverse order with
  ! one-integer gaps; plain at the last rank, then in place at 0 ----
  total = 0
  do j = nprocs, 1, -1
    counts(j) = j
    displs(j) = total
    total = total + j + 1
  end do
  deallocate(big, expect)
  allocate(big(total), expect(total))
  expect = -1
  do j = 1, nprocs
    do i = 1, counts(j)
      expect(displs(j) + i) = 1000 * (j - 1) + i
    end do
  end do
  root = nprocs - 1
  big = -1
  call MPI_Gatherv(expect(displs(rank+1)+1), rank + 1, MPI_INTEGER, big, &
                   counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'gatherv ierror')
  if (rank == root) call check(all(big == expect), 'gatherv')
  if (rank == 0) then
    big = -1
    big(displs(1)+1:displs(1)+counts(1)) = expect(displs(1)+1:displs(1)+counts(1))
    call MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INTEGER, big, counts, displs, &
                     MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(big == expect), 'gatherv in place')
  else
    call MPI_Gatherv(expect(displs(rank+1)+1), rank + 1, MPI_INTEGER, big, &
                     counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'gatherv in place ierror')

  ! ---- scatterv: the same layout back; plain at rank 1, in place at 0 ----
  root = 1
  big = -1
  if (rank == root) big = expect
  rv = -1
  call MPI_Scatterv(big, counts, displs, MPI_INTEGER, rv, rank + 1, &
                    MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'scatterv ierror')
  call check(all(rv(1:rank+1) == expect(displs(rank+1)+1:displs(rank+1)+rank+1)), &
             'scatterv')
  if (rank == 0) then
    big = expect
    call MPI_Scatterv(big, counts, displs, MPI_INTEGER, MPI_IN_PLACE, 1, &
                      MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(big == expect), 'scatterv in place (root buffer)')
  else
    rv = -1
    call MPI_Scatterv(big, counts, displs, MPI_INTEGER, rv, rank + 1, &
                      MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(rv(1:rank+1) == expect(displs(rank+1)+1:displs(rank+1)+rank+1)), &
               'scatterv in place')
  end if
  call check(ierr == MPI_SUCCESS, 'scatterv in place ierror')

  call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (errors == 0) then
    print '(a,i0,a,i0)', 'test_fortran: PASS rank ', rank, ' of ', nprocs
  else
    print '(a,i0,a,i0,a)', 'test_fortran: FAIL rank ', rank, ' (', errors, &
          ' failed checks over all ranks)'
  end if
  call MPI_Finalize(ierr)
  if (errors /= 0) stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errors = errors + 1
      print '(a,i0,a,a)', 'test_fortran: FAIL rank ', rank, ': ', what
    end if
  end subroutine check

end program test_fortran
