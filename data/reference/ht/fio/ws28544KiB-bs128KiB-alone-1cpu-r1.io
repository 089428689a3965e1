rchar: 40798366656
wchar: 13660
syscr: 311486
syscw: 5
read_bytes: 471040
write_bytes: 20480
cancelled_write_bytes: 0
