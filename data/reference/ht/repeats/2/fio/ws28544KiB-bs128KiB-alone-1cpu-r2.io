rchar: 44987820992
wchar: 13660
syscr: 343449
syscw: 5
read_bytes: 20480
write_bytes: 8192
cancelled_write_bytes: 0
