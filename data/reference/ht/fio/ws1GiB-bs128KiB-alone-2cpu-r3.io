rchar: 89741044824
wchar: 18969
syscr: 684908
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
