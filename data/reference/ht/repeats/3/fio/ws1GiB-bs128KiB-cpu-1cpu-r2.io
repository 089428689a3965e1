rchar: 14496106955
wchar: 5973
syscr: 110784
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
