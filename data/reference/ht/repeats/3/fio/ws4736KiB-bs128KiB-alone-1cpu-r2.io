rchar: 38076090833
wchar: 5972
syscr: 290687
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
