rchar: 66007051270
wchar: 13667
syscr: 503813
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
