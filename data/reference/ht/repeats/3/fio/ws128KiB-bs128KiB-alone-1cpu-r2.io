rchar: 123125476276
wchar: 13667
syscr: 939592
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
