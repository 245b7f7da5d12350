! Fortran smoke test of the interposition library: a column and a row of
! a matrix as derived types, packed and sent between rank pairs; structs of
! absolute addresses sent from and received into MPI_BOTTOM.
program smoke
  use mpi
  implicit none
  integer, parameter :: n = 20
  double precision :: a(n, n), b(n, n), buf(n)
  integer :: ierr, rank, nprocs, row, peer, pos, i, j, k, st(MPI_STATUS_SIZE)
  integer :: req(4), sts(MPI_STATUS_SIZE, 4), idx
  double precision :: x, y, e(8), f(8), g(8), h(8)
  integer :: ts, tr, bls(2), tys(2)
  integer(kind=MPI_ADDRESS_KIND) :: ds(2)
  character(len=8*n) :: packed

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do j = 1, n
    do i = 1, n
      a(i, j) = rank * 10000 + i * 100 + j
    end do
  end do
  ! a row of a column-major matrix: n elements n apart
  call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, row, ierr)
  call MPI_Type_commit(row, ierr)
  pos = 0
  call MPI_Pack(a(3, 1), 1, row, packed, 8 * n, pos, MPI_COMM_WORLD, ierr)
  pos = 0
  call MPI_Unpack(packed, 8 * n, pos, buf, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  do j = 1, n
    if (buf(j) /= a(3, j)) then
      print *, 'FAIL pack row', j, buf(j)
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  peer = ieor(rank, 1)
  if (peer < nprocs) then
    b = -1
    call MPI_Sendrecv(a(2, 1), 1, row, peer, 7, b(5, 1), 1, row, peer, 7, MPI_COMM_WORLD, st, ierr)
    do j = 1, n
      do i = 1, n
        if ((i == 5 .and. b(i, j) /= peer * 10000 + 2 * 100 + j) .or. (i /= 5 .and. b(i, j) /= -1)) then
          print *, 'FAIL sendrecv', i, j, b(i, j)
          call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
      end do
    end do
  end if
  if (peer < nprocs) then
    ! non-blocking: rows 7 and 8 each way, plus plain doubles, completed
    ! by waitall, wait and waitany
    b = -1
    x = rank
    call MPI_Irecv(b(7, 1), 1, row, peer, 8, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(b(8, 1), 1, row, peer, 9, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, peer, 10, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(a(1, 1), 1, row, peer, 8, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitany(3, req, idx, st, ierr)
    call MPI_Send(a(4, 1), 1, row, peer, 9, MPI_COMM_WORLD, ierr)
    call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, peer, 10, MPI_COMM_WORLD, ierr)
    call MPI_Waitall(4, req, sts, ierr)
    do j = 1, n
      do i = 1, n
        k = -1
        if (i == 7) k = 1
        if (i == 8) k = 4
        if ((k > 0 .and. b(i, j) /= peer * 10000 + k * 100 + j) .or. (k < 0 .and. b(i, j) /= -1)) then
          print *, 'FAIL irecv', i, j, b(i, j)
          call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
      end do
    end do
    if (y /= peer) then
      print *, 'FAIL irecv double', y
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end if
  if (peer < nprocs) then
    ! MPI_BOTTOM: e(2:4) and f(5:8) go to g(1:3) and h(4:7) of the peer
    do i = 1, 8
      e(i) = rank * 100 + i
      f(i) = rank * 100 + 10 + i
    end do
    g = -1
    h = -1
    bls = (/3, 4/)
    tys = (/MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION/)
    call MPI_Get_address(e(2), ds(1), ierr)
    call MPI_Get_address(f(5), ds(2), ierr)
    call MPI_Type_create_struct(2, bls, ds, tys, ts, ierr)
    call MPI_Get_address(g(1), ds(1), ierr)
    call MPI_Get_address(h(4), ds(2), ierr)
    call MPI_Type_create_struct(2, bls, ds, tys, tr, ierr)
    call MPI_Type_commit(ts, ierr)
    call MPI_Type_commit(tr, ierr)
    call MPI_Sendrecv(MPI_BOTTOM, 1, ts, peer, 11, MPI_BOTTOM, 1, tr, peer, 11, MPI_COMM_WORLD, st, ierr)
    do i = 1, 8
      x = -1
      if (i <= 3) x = peer * 100 + i + 1
      y = -1
      if (i >= 4 .and. i <= 7) y = peer * 100 + 10 + i + 1
      if (g(i) /= x .or. h(i) /= y) then
        print *, 'FAIL bottom', i, g(i), h(i)
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
    end do
    call MPI_Type_free(ts, ierr)
    call MPI_Type_free(tr, ierr)
  end if
  call MPI_Type_free(row, ierr)
  if (rank == 0) print '(a)', 'ok fortran'
  call MPI_Finalize(ierr)
end program smoke
