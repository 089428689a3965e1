rchar: 25715387294
wchar: 13662
syscr: 196410
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
