rchar: 45199764424
wchar: 13667
syscr: 345066
syscw: 5
read_bytes: 946176
write_bytes: 40960
cancelled_write_bytes: 0
