program fdemo
  use geometry
  implicit none
  print '(A, I0)', 'scaled area: ', scaled_area(2, 5)
end program fdemo
