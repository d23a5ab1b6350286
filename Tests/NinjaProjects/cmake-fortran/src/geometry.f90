module geometry
  use constants
  implicit none
contains
  integer function scaled_area(w, h)
    integer, intent(in) :: w, h
    scaled_area = w * h * scale
  end function scaled_area
end module geometry
