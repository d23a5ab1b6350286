module constants
  implicit none
  integer, parameter :: scale = 3
end module constants
