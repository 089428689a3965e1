rchar: 15324760527
wchar: 5978
syscr: 3741570
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
