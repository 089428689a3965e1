rchar: 112255806390
wchar: 13666
syscr: 856663
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
