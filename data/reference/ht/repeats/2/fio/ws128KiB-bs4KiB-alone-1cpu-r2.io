rchar: 20896480245
wchar: 13662
syscr: 5101873
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
